// What the journal keeps of a request and its answer as they went over the wire: headers with secrets masked, bodies bounded.

import type { Request, Response } from "express";
import { apiKeyHint } from "../domain/api-keys.js";
import { bodyText, type BodyText } from "../domain/excerpt.js";

/** Headers that carry a credential: kept only as their last characters, like `api_key_hint`. */
const SECRET_HEADERS = new Set(["authorization", "proxy-authorization", "x-api-key", "cookie"]);
/** `Bearer <credentials>`: the scheme is no secret, and says what kind of key was sent. */
const AUTH_SCHEME = /^([A-Za-z][A-Za-z0-9!#$%&'*+.^_`|~-]*) +(.*)$/;

/** `Bearer test-key-1234` -> `Bearer …1234`; any other secret -> `…` and its last 4 characters (fewer when short). */
export function maskedSecret(name: string, value: string): string {
  const scheme = name.endsWith("authorization") ? AUTH_SCHEME.exec(value) : null;
  if (scheme) return `${scheme[1] ?? ""} …${apiKeyHint((scheme[2] ?? "").trim())}`;
  return `…${apiKeyHint(value.trim())}`;
}

/**
 * The request's headers as received, by lower-case name (HTTP names are case-insensitive, so a
 * test reads `authorization` whatever the client wrote); a repeated header is joined with ", ",
 * where Node's `req.headers` would keep only the first Authorization or Content-Type.
 */
export function requestHeadersOf(req: Request): Record<string, string> {
  const headers: Record<string, string> = {};
  const raw = req.rawHeaders;
  for (let index = 0; index + 1 < raw.length; index += 2) {
    const name = (raw[index] ?? "").toLowerCase();
    const given = raw[index + 1] ?? "";
    const value = SECRET_HEADERS.has(name) ? maskedSecret(name, given) : given;
    headers[name] = Object.hasOwn(headers, name) ? `${headers[name] ?? ""}, ${value}` : value;
  }
  return headers;
}

/** The answer's headers as sent, by lower-case name (Node adds Date, Connection and Keep-Alive itself, outside these). */
export function answerHeadersOf(res: Response): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(res.getHeaders())) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : String(value);
  }
  return headers;
}

function bytesOf(chunk: unknown, encoding: unknown): Uint8Array | undefined {
  if (typeof chunk === "string") return Buffer.from(chunk, typeof encoding === "string" && Buffer.isEncoding(encoding) ? encoding : "utf8");
  return chunk instanceof Uint8Array ? chunk : undefined;
}

/**
 * Watches what the pipeline writes to `res`, wherever it writes from (the error shapes, a
 * fault's non-JSON body, the proxy's relayed answer): keeps the first `maxBytes` + 1 bytes, so
 * a long answer is known to be cut, and calls `onEnd` once the answer has been handed to Node,
 * with `delivered` false when the connection was already closed (the pipeline has finished all
 * the same, e.g. a send captured after its client gave up during a latency fault).
 * Returns what was kept as text.
 */
export function captureAnswer(res: Response, maxBytes: number, onEnd: (delivered: boolean) => void): () => BodyText {
  const chunks: Uint8Array[] = [];
  let kept = 0;
  const keep = (chunk: unknown, encoding: unknown): void => {
    if (kept > maxBytes) return;
    const bytes = bytesOf(chunk, encoding);
    if (bytes === undefined || bytes.length === 0) return;
    const room = maxBytes + 1 - kept;
    // A string was just encoded into bytes of its own; the answer's own buffer is copied (its
    // start only), so that it is not held past the request.
    const part = typeof chunk === "string" && bytes.length <= room ? bytes : Buffer.from(bytes.subarray(0, room));
    chunks.push(part);
    kept += part.length;
  };
  const write = res.write.bind(res) as (...args: unknown[]) => boolean;
  const end = res.end.bind(res) as (...args: unknown[]) => Response;
  res.write = ((...args: unknown[]) => {
    keep(args[0], args[1]);
    return write(...args);
  }) as Response["write"];
  res.end = ((...args: unknown[]) => {
    keep(args[0], args[1]);
    const delivered = !res.destroyed && res.socket?.destroyed !== true;
    const result = end(...args);
    onEnd(delivered);
    return result;
  }) as Response["end"];
  return () => bodyText(Buffer.concat(chunks), maxBytes);
}
