// Slow clients: sockets that trickle a request never finish it, and idle keep-alive sockets,
// are closed on their deadlines while the mock keeps responding to everyone else.

import { once } from "node:events";
import { describe, expect, it, type TestContext } from "vitest";
import type { RunningSendMock, SendMockOptions } from "../../../src/index.js";
import { API_KEY, aRunningMock, aSendRequest, bearer, expectContract } from "../../support/helpers.js";
import { openConnection, parseRawResponse, type OpenConnection } from "./raw-http.js";

const SLOW_CLIENTS = 50;
const HEADERS_TIMEOUT_MS = 1_000;
/** Node checks its deadlines every quarter of the headers timeout; the rest is a busy CI machine. */
const SLACK_MS = 1_500;

/**
 * What one test opens: its mock, its connections and the timers trickling into them, all let go
 * when the test finishes. Each test has its own, so the tests run side by side: nearly all their
 * time is spent waiting for a deadline (5.3 s one after the other, in a full run).
 */
function slowClientsOf(onTestFinished: TestContext["onTestFinished"]): {
  theMock: (options: SendMockOptions) => Promise<RunningSendMock>;
  connect: (port: number) => Promise<OpenConnection>;
  trickle: (connection: OpenConnection, text: string, everyMs: number) => void;
} {
  let mock: RunningSendMock | undefined;
  const connections: OpenConnection[] = [];
  const tricklers: NodeJS.Timeout[] = [];
  onTestFinished(async () => {
    for (const trickler of tricklers) clearInterval(trickler);
    for (const connection of connections) connection.socket.destroy();
    await mock?.close();
  });
  return {
    async theMock(options) {
      mock = await aRunningMock(options);
      return mock;
    },
    async connect(port) {
      const connection = await openConnection(port);
      connections.push(connection);
      return connection;
    },
    /** Writes `text` one byte every `everyMs`, the way a slowloris client keeps a socket busy. */
    trickle(connection, text, everyMs) {
      let next = 0;
      const trickler = setInterval(() => {
        if (next >= text.length || connection.socket.destroyed) {
          clearInterval(trickler);
          return;
        }
        connection.socket.write(text[next] ?? "");
        next += 1;
      }, everyMs);
      tricklers.push(trickler);
    },
  };
}

async function postSend(url: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${url}/send`, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...bearer(), ...headers },
    body: JSON.stringify(aSendRequest()),
  });
}

describe.concurrent("clients that send their headers too slowly", () => {
  it(`keep the mock answering, and each of ${SLOW_CLIENTS} is answered 408 and closed after headers_timeout_ms`, async ({ onTestFinished }) => {
    const { theMock, connect, trickle } = slowClientsOf(onTestFinished);
    const running = await theMock({ headersTimeoutMs: HEADERS_TIMEOUT_MS, requestTimeoutMs: 2 * HEADERS_TIMEOUT_MS });
    const slowRequest = `POST /send HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nX-Padding: ${"a".repeat(200)}`;

    const slow = await Promise.all(
      Array.from({ length: SLOW_CLIENTS }, async () => {
        const connectedAt = performance.now();
        const connection = await connect(running.port);
        trickle(connection, slowRequest, 50);
        return { connection, connectedAt };
      }),
    );
    let closedSoFar = 0;
    for (const { connection } of slow) void connection.closed.then(() => (closedSoFar += 1));

    const sentAt = performance.now();
    const response = await postSend(running.url);
    const respondedInMs = performance.now() - sentAt;
    expect(response.status).toBe(200);
    expect(closedSoFar, "the answer came while every slow client was still connected").toBe(0);
    expect(respondedInMs).toBeLessThan(HEADERS_TIMEOUT_MS);

    const lifetimes = await Promise.all(slow.map(async ({ connection, connectedAt }) => (await connection.closed) - connectedAt));
    for (const lifetime of lifetimes) {
      expect(lifetime).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - 50);
      expect(lifetime).toBeLessThan(HEADERS_TIMEOUT_MS + SLACK_MS);
    }
    for (const { connection } of slow) {
      const timedOut = parseRawResponse(connection.received());
      await expectContract({ ...timedOut, body: JSON.parse(timedOut.body) as unknown });
      expect(timedOut.status).toBe(408);
      expect(timedOut.headers["x-sendmock-error-code"]).toBe("invalid_request");
      expect(timedOut.headers.connection).toBe("close");
      expect(JSON.parse(timedOut.body)).toEqual({
        success: false,
        error: { code: "invalid_request", message: expect.stringContaining(`headers_timeout_ms (${HEADERS_TIMEOUT_MS} ms)`) as unknown },
      });
    }
    // Nothing a slow client sent reached the pipeline.
    expect(await running.journal.list()).toMatchObject({ total: 1 });
  });
});

describe.concurrent("clients that send their body too slowly", () => {
  it("are answered 408 and closed after request_timeout_ms, in the configured shape", async ({ onTestFinished }) => {
    const { theMock, connect, trickle } = slowClientsOf(onTestFinished);
    const requestTimeoutMs = 1_000;
    const running = await theMock({ headersTimeoutMs: 500, requestTimeoutMs, responseShape: "b" });
    const connection = await connect(running.port);
    const startedAt = performance.now();
    connection.socket.write(
      `POST /send HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${API_KEY}\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{"to":`,
    );
    trickle(connection, ` "ada@example.com", "template_id": "welcome", ${" ".repeat(400)}`, 50);

    const lifetime = (await connection.closed) - startedAt;

    expect(lifetime).toBeGreaterThanOrEqual(requestTimeoutMs - 50);
    expect(lifetime).toBeLessThan(requestTimeoutMs + SLACK_MS);
    const timedOut = parseRawResponse(connection.received());
    expect(timedOut.status).toBe(408);
    expect(JSON.parse(timedOut.body)).toEqual({ status: "error", message: expect.stringContaining("request_timeout_ms (1000 ms)") as unknown });
  });

  it("do not cut a request that has arrived, however long the mock takes to answer it", async ({ onTestFinished }) => {
    const { theMock } = slowClientsOf(onTestFinished);
    const running = await theMock({ headersTimeoutMs: 500, requestTimeoutMs: 1_000 });
    const sentAt = performance.now();

    const response = await postSend(running.url, { "X-Sendmock-Fault": "latency", "X-Sendmock-Fault-Delay": "1500" });

    expect(response.status).toBe(200);
    expect(performance.now() - sentAt).toBeGreaterThanOrEqual(1_500);
  });
});

describe.concurrent("idle keep-alive connections", () => {
  it("are closed after keep_alive_timeout_ms (plus Node's 1 s grace)", async ({ onTestFinished }) => {
    const { theMock, connect } = slowClientsOf(onTestFinished);
    const keepAliveTimeoutMs = 500;
    const running = await theMock({ keepAliveTimeoutMs });
    const connection = await connect(running.port);
    const responded = once(connection.socket, "data").then(() => performance.now());
    connection.socket.write("GET /_mock/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    const respondedAt = await responded;

    const idleFor = (await connection.closed) - respondedAt;

    const health = parseRawResponse(connection.received());
    expect(health.body).toBe('{"ok":true}');
    expect(health.headers.connection).toBe("keep-alive");
    expect(idleFor).toBeGreaterThanOrEqual(keepAliveTimeoutMs - 50);
    expect(idleFor).toBeLessThan(keepAliveTimeoutMs + 1_000 + SLACK_MS);
  });
});
