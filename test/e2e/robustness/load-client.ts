// A load generator for the robustness tests: keeps N sends in flight over keep-alive sockets and
// records, for each one, when its request was fully written and how it ended. autocannon counts
// outcomes but cannot say which request was on the wire before a signal, which these tests need.

import http from "node:http";
import type { Socket } from "node:net";
import { aSendRequest, bearer } from "../../support/helpers.js";

/**
 * `writtenAt` is when the whole request had been handed to the socket (performance.now()), if it
 * was; `connection` numbers the socket it went out on, from 0 in the order they were opened.
 */
export type SendResult =
  | { kind: "answered"; index: number; connection: number | undefined; status: number; body: string; writtenAt: number | undefined }
  /** `code` is the socket error (ECONNRESET, ECONNREFUSED, ...), `timeout` or `response cut off`. */
  | { kind: "failed"; index: number; connection: number | undefined; code: string; writtenAt: number | undefined };

export interface LoadOptions {
  /** Base URL of the mock, `http://127.0.0.1:NNNNN`. */
  url: string;
  concurrency: number;
  /** Sends to make in all; without it, the load runs until the server refuses connections. */
  total?: number;
  /** Called with every result as it arrives, in arrival order. */
  onResult?: (result: SendResult) => void;
}

export interface LoadRun {
  results: SendResult[];
  elapsedMs: number;
}

// A send that gets no response in this time counts as a timeout: long enough for a loaded 2-core machine.
const SEND_TIMEOUT_MS = 20_000;

/** The recipient of send number `index`, so a captured message can be traced back to its request. */
export function recipientOf(index: number): string {
  return `load-${index}@example.com`;
}

/**
 * Sends valid `welcome` requests from `concurrency` workers over as many keep-alive sockets.
 * A worker stops when the server refuses a connection: it has stopped listening.
 */
export async function sendConcurrently(options: LoadOptions): Promise<LoadRun> {
  const target = new URL(options.url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.concurrency });
  const total = options.total ?? Number.POSITIVE_INFINITY;
  const results: SendResult[] = [];
  let nextIndex = 0;
  const connections = new WeakMap<Socket, number>();
  let openedConnections = 0;
  const connectionOf = (socket: Socket): number => {
    let connection = connections.get(socket);
    if (connection === undefined) {
      connection = openedConnections;
      openedConnections += 1;
      connections.set(socket, connection);
    }
    return connection;
  };

  const worker = async (): Promise<void> => {
    while (nextIndex < total) {
      const index = nextIndex;
      nextIndex += 1;
      const result = await sendOnce(agent, target, index, connectionOf);
      results.push(result);
      options.onResult?.(result);
      if (result.kind === "failed" && result.code === "ECONNREFUSED") return;
    }
  };

  const started = performance.now();
  try {
    await Promise.all(Array.from({ length: options.concurrency }, worker));
  } finally {
    agent.destroy();
  }
  return { results, elapsedMs: performance.now() - started };
}

function sendOnce(agent: http.Agent, target: URL, index: number, connectionOf: (socket: Socket) => number): Promise<SendResult> {
  const body = JSON.stringify(aSendRequest({ to: recipientOf(index) }));
  return new Promise((resolve) => {
    let writtenAt: number | undefined;
    let connection: number | undefined;
    let settled = false;
    const settle = (result: SendResult): void => {
      if (settled) return;
      settled = true;
      resolve(result);
    };
    const fail = (code: string): void => {
      settle({ kind: "failed", index, connection, code, writtenAt });
    };
    const request = http.request(
      {
        agent,
        host: target.hostname,
        port: target.port,
        method: "POST",
        path: "/send",
        headers: { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body), ...bearer() },
        timeout: SEND_TIMEOUT_MS,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => {
          settle({ kind: "answered", index, connection, status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8"), writtenAt });
        });
        response.on("error", (error: NodeJS.ErrnoException) => {
          fail(error.code ?? error.message);
        });
        // A socket closed in the middle of the body ends without "end".
        response.on("close", () => {
          if (!response.complete) fail("answer cut off");
        });
      },
    );
    request.on("socket", (socket) => {
      connection = connectionOf(socket);
    });
    request.on("finish", () => {
      writtenAt = performance.now();
    });
    request.on("timeout", () => {
      fail("timeout");
      request.destroy();
    });
    request.on("error", (error: NodeJS.ErrnoException) => {
      fail(error.code ?? error.message);
    });
    request.end(body);
  });
}

/** The `message_id` of a shape-a success response, or undefined for anything else. */
export function messageIdOf(result: SendResult): string | undefined {
  if (result.kind !== "answered" || result.status !== 200) return undefined;
  const parsed = JSON.parse(result.body) as { message_id?: unknown };
  return typeof parsed.message_id === "string" ? parsed.message_id : undefined;
}
