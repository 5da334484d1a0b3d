// The http.Server lifecycle: listen (port 0 included), limits on slow or oversized clients,
// report the real address, close gracefully.

import type { HttpResponse } from "./response.js";
import { turnEnd } from "./domain/turns.js";
import { once } from "node:events";
import http, { STATUS_CODES, type RequestListener, type ServerResponse } from "node:http";
import net, { type AddressInfo } from "node:net";
import type { Duplex } from "node:stream";

export interface RunningServer {
  readonly url: string;
  readonly port: number;
  /**
   * Stops accepting, lets in-flight requests finish, then resolves. With `forceAfterMs`, the
   * connections still open then are cut, so a client that never finishes cannot hold the stop.
   */
  close(options?: { forceAfterMs?: number }): Promise<void>;
}

/** What a connection may cost: slow clients must not hold sockets forever, nor large headers memory. */
export interface ServerLimits {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  maxHeaderBytes: number;
}

/** A request Node's HTTP parser refused before any handler saw it. */
export interface ClientError {
  kind: "headers_too_large" | "request_timeout" | "malformed_request";
  /** The parser's own words, such as "Invalid method encountered". */
  reason: string;
}

export interface ListenOptions {
  host: string;
  port: number;
  limits: ServerLimits;
  /** The response to a request the parser refused, in the same shape as the app's own errors. */
  respondToClientError: (error: ClientError) => HttpResponse;
}

export function formatUrl(host: string, port: number): string {
  return `http://${host.includes(":") && !host.startsWith("[") ? `[${host}]` : host}:${port}`;
}

/** Node checks the headers and request deadlines on this interval, 30 s by default: too coarse for a 1 s limit. */
function deadlineCheckInterval(limits: ServerLimits): number {
  return Math.min(1_000, Math.floor(limits.headersTimeoutMs / 4));
}

function clientErrorOf(error: Error & { code?: string; reason?: string }): ClientError | undefined {
  if (error.code === "HPE_HEADER_OVERFLOW") return { kind: "headers_too_large", reason: error.reason ?? error.message };
  if (error.code === "ERR_HTTP_REQUEST_TIMEOUT") return { kind: "request_timeout", reason: error.message };
  // Other HPE_ codes are requests that do not parse; anything else (ECONNRESET, EPIPE) is the
  // connection failing, and there is nobody left to respond.
  if (error.code?.startsWith("HPE_")) return { kind: "malformed_request", reason: error.reason ?? error.message };
  return undefined;
}

function serialize(response: HttpResponse): string {
  const headers = { ...response.headers, "Content-Length": String(Buffer.byteLength(response.body)), Connection: "close" };
  const head = [`HTTP/1.1 ${response.status} ${STATUS_CODES[response.status] ?? ""}`, ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`)];
  return `${head.join("\r\n")}\r\n\r\n${response.body}`;
}

export async function listen(handler: RequestListener, options: ListenOptions): Promise<RunningServer> {
  const { limits } = options;
  const server = http.createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      maxHeaderSize: limits.maxHeaderBytes,
      connectionsCheckingInterval: deadlineCheckInterval(limits),
    },
    handler,
  );
  server.listen(options.port, options.host);
  await Promise.race([
    once(server, "listening"),
    once(server, "error").then(([error]: unknown[]) => {
      throw error;
    }),
  ]);
  const { port } = server.address() as AddressInfo;

  // The response each connection is writing, so a client error never cuts into a response that
  // has begun: its client would read a broken one.
  const responses = new WeakMap<Duplex, ServerResponse>();
  // Requests getting a response. Connections whose client gave up on a request are neither idle
  // nor in flight, so once none is pending every connection left is closed.
  let inFlight = 0;
  let stopping = false;
  // Set once the idle connections of a stopping server have been closed.
  let idleClosed = false;
  let closing: Promise<void> | undefined;
  const closeWhenDrained = (): void => {
    if (idleClosed && inFlight === 0) server.closeAllConnections();
  };
  server.on("request", (req, res) => {
    // Responded, then closed: a client learns from the response itself not to reuse the connection.
    if (stopping) res.setHeader("Connection", "close");
    inFlight += 1;
    responses.set(req.socket, res);
    res.once("close", () => {
      inFlight -= 1;
      if (responses.get(req.socket) === res) responses.delete(req.socket);
      closeWhenDrained();
    });
  });

  // Without this listener Node responds to these with a bare status line; with it, the client gets
  // the same JSON error envelope as everywhere else. The listener must close the socket itself.
  server.on("clientError", (error: Error, socket: Duplex) => {
    const clientError = clientErrorOf(error);
    const responseStarted = responses.get(socket)?.headersSent ?? false;
    if (clientError === undefined || !socket.writable || responseStarted) {
      socket.destroy();
      return;
    }
    socket.end(serialize(options.respondToClientError(clientError)), () => socket.destroy());
  });

  return {
    url: formatUrl(options.host, port),
    port,
    close(closeOptions = {}) {
      stopping = true;
      if (closeOptions.forceAfterMs !== undefined) {
        // Unref'd: a stop that drains sooner must not wait for the deadline.
        setTimeout(() => server.closeAllConnections(), closeOptions.forceAfterMs).unref();
      }
      closing ??= new Promise<void>((resolve, reject) => {
        // net.Server's close only stops accepting; http.Server's would also drop idle keep-alive
        // connections, among them those whose next request is already in the socket.
        net.Server.prototype.close.call(server, (error?: Error) => {
          // Now http.Server's close, which also stops its deadline timer: left running, it keeps
          // the closed server, its app and its outbox in memory.
          server.close();
          if (error) reject(error);
          else resolve();
        });
        // Idle connections go at once, but not before a request already in a socket's buffer has
        // been read: the first turn may run before the event loop polls the sockets again, the
        // second runs after it. Closing idle sockets straight away reset such requests, and the
        // fixed 200 ms wait that replaced it made every close() take 200 ms.
        void turnEnd()
          .then(turnEnd)
          .then(() => {
            idleClosed = true;
            server.closeIdleConnections();
            closeWhenDrained();
          });
      });
      return closing;
    },
  };
}
