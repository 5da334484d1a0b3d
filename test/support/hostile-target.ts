// Targets that try to hurt `sendmock check` and `sendmock proxy` (issue 43): endless bodies, gzip bombs, silence, sockets closed mid-body, thousands of headers.

import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";

export interface HostileTarget {
  /** http://127.0.0.1:PORT, the base URL (the operation is POST {url}/send). */
  url: string;
  /** Requests that arrived, in order: method, path and body. */
  received: { method: string; path: string; body: string }[];
  /** Body bytes written to each response so far (before compression for a gzip bomb: what went on the wire). */
  written: number[];
  close(): Promise<void>;
}

/** What the test's handler is given: the request, its body, and a way to count what it writes. */
export type HostileHandler = (req: IncomingMessage, body: string, res: ServerResponse, count: (bytes: number) => void) => void;

export async function startHostileTarget(handler: HostileHandler): Promise<HostileTarget> {
  const received: HostileTarget["received"] = [];
  const written: number[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      received.push({ method: req.method ?? "", path: req.url ?? "", body });
      const index = written.push(0) - 1;
      handler(req, body, res, (bytes) => (written[index] = (written[index] ?? 0) + bytes));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    written,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Writes `chunk` again and again, `times` times, as fast as the client reads (never past the socket's
 * buffer), and stops once the client goes away: the body of a target that would send forever.
 */
export function writeRepeatedly(res: ServerResponse, chunk: Buffer, times: number, count: (bytes: number) => void): void {
  let left = times;
  res.once("close", () => (left = 0));
  const pump = (): void => {
    while (left > 0) {
      left -= 1;
      count(chunk.length);
      if (!res.write(chunk)) {
        res.once("drain", pump);
        return;
      }
    }
    if (!res.writableEnded) res.end();
  };
  pump();
}

const MB = 1024 * 1024;

/** A body of `megabytes` MB of JSON-ish text, sent with `status`. */
export function endlessBody(res: ServerResponse, status: number, megabytes: number, count: (bytes: number) => void): void {
  res.writeHead(status, { "Content-Type": "application/json" });
  writeRepeatedly(res, Buffer.alloc(64 * 1024, "a"), megabytes * 16, count);
}

// 10 MB of zeros gzip to ~10 KB; gzip members follow one another in one stream (RFC 1952 §2.2),
// so repeating one makes a bomb of any size for no CPU.
let bombMember: Buffer | undefined;

/** A gzip body that inflates to `megabytes` MB (a hundredth of that on the wire), sent with `status`. */
export function gzipBomb(res: ServerResponse, status: number, megabytes: number, count: (bytes: number) => void): void {
  bombMember ??= gzipSync(Buffer.alloc(10 * MB), { level: 9 });
  res.writeHead(status, { "Content-Type": "application/json", "Content-Encoding": "gzip" });
  writeRepeatedly(res, bombMember, Math.ceil(megabytes / 10), count);
}

/** Sends a status, headers and the start of a body it says is longer, then closes the socket. */
export function closeMidBody(res: ServerResponse, status: number): void {
  res.writeHead(status, { "Content-Type": "application/json", "Content-Length": "1000" });
  res.write('{"success":false,"error":', () => res.socket?.destroy());
}

/** A status line and 3000 headers: more than any HTTP client reads. */
export function tooManyHeaders(res: ServerResponse, status: number): void {
  const headers: Record<string, string> = { "Content-Type": "application/json" };
  for (let index = 0; index < 3000; index += 1) headers[`x-padding-${index}`] = "v";
  res.writeHead(status, headers).end("{}");
}

/** Terminal escape sequences: a window title change (OSC 0, ended by BEL) and a screen clear. */
export const ESCAPES = "\u001b]0;owned\u0007\u001b[2J";
