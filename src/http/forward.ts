// One send request relayed to the real service with fetch: headers in, the response's status, headers and body out, the body read only up to a bound.

import type { HttpResponse } from "../response.js";
import { brokenAnswer, readWithin } from "../bounded-response.js";

/** Headers that concern one connection only (RFC 9110 7.6.1), never relayed in either direction. */
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);

/** Not relayed upstream: fetch sets the host and length itself and decodes any encoding it asks for. */
const NOT_FORWARDED = new Set(["host", "content-length", "accept-encoding", "expect"]);

/** The response headers passed on to the client; the rest (server, date, cookies...) stays with the proxy. */
const PASSED_BACK = /^(content-type|retry-after|ratelimit-.+|x-ratelimit-.+|x-request-id|request-id|x-sendmock-error-code|x-sendmock-warning)$/;

export interface ForwardRequest {
  /** The service's base URL; the request goes to `{target}/send`. */
  target: string;
  /** The client's headers, as node gives them (lower-case names). */
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  timeoutMs: number;
  /** The most of the response's body read, decoded; past it the upstream's connection is dropped and the relay fails. */
  maxBodyBytes: number;
  /** Aborts the upstream request, when the client goes away say. */
  signal?: AbortSignal;
}

/** Its headers are only those worth passing on to the client; its body is the text, for the contract check. */
export interface UpstreamResponse extends HttpResponse {
  /** The body as received, for the client. */
  readonly bytes: Buffer;
}

/** Upstream unreachable, silent past the timeout, broken after answering, or with a body over the bound; the message names the target. */
export class UpstreamError extends Error {
  override name = "UpstreamError";
}

export function sendUrl(target: string): string {
  return `${target.replace(/\/+$/, "")}/send`;
}

function connectionTokens(headers: Record<string, string | string[] | undefined>): Set<string> {
  const connection = headers.connection;
  const value = Array.isArray(connection) ? connection.join(",") : (connection ?? "");
  return new Set(
    value
      .split(",")
      .map((token) => token.trim().toLowerCase())
      .filter((token) => token !== ""),
  );
}

function forwardedHeaders(headers: ForwardRequest["headers"]): Headers {
  const named = connectionTokens(headers);
  const out = new Headers();
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || NOT_FORWARDED.has(name) || named.has(name)) continue;
    for (const item of Array.isArray(value) ? value : [value]) out.append(name, item);
  }
  return out;
}

function describeUpstreamFailure(error: unknown, url: string, timeoutMs: number, status: number | undefined): string {
  const broken = brokenAnswer(error, status);
  if (broken !== undefined) return `the upstream ${url} ${broken}`;
  if (error instanceof Error && error.name === "TimeoutError") return `the upstream ${url} did not answer within ${timeoutMs / 1000} s`;
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : undefined;
  const reason = cause ?? (error instanceof Error ? error.message : String(error));
  return `the upstream ${url} could not be reached: ${reason}`;
}

/** Relays the request unchanged (same body bytes, same Authorization) and reads the response, its body up to `maxBodyBytes`. */
export async function forwardSend(request: ForwardRequest): Promise<UpstreamResponse> {
  const url = sendUrl(request.target);
  const timeout = AbortSignal.timeout(request.timeoutMs);
  const signal = request.signal ? AbortSignal.any([timeout, request.signal]) : timeout;
  let status: number | undefined;
  try {
    const response = await fetch(url, {
      method: "POST",
      headers: forwardedHeaders(request.headers),
      body: request.body,
      redirect: "manual",
      signal,
    });
    status = response.status;
    const bytes = await readWithin(response, request.maxBodyBytes);
    if (bytes !== undefined) {
      const headers: Record<string, string> = {};
      response.headers.forEach((value, name) => {
        if (PASSED_BACK.test(name)) headers[name] = value;
      });
      return { status: response.status, headers, body: bytes.toString("utf8"), bytes };
    }
  } catch (error) {
    throw new UpstreamError(describeUpstreamFailure(error, url, request.timeoutMs, status), { cause: error });
  }
  // Read no further: the client gets a 502 saying why, and the connection to the service is gone.
  throw new UpstreamError(`the upstream ${url} answered ${status} with a body over ${request.maxBodyBytes} bytes (--max-body-bytes): not passed on`);
}
