// The http.Server lifecycle: listen (port 0 included), report the real address, close gracefully.

import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { RequestListener } from "node:http";

export interface RunningServer {
  readonly url: string;
  readonly port: number;
  /** Stops accepting, lets in-flight requests finish, then resolves. */
  close(): Promise<void>;
}

export function formatUrl(host: string, port: number): string {
  return `http://${host.includes(":") && !host.startsWith("[") ? `[${host}]` : host}:${port}`;
}

export async function listen(handler: RequestListener, options: { host: string; port: number }): Promise<RunningServer> {
  const server = http.createServer(
    {
      // Slow clients must not hold sockets forever.
      headersTimeout: 20_000,
      requestTimeout: 120_000,
      keepAliveTimeout: 5_000,
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

  // Connections whose client gave up on a request are neither idle nor in flight, so once no
  // response is pending every connection left is closed.
  let inFlight = 0;
  let stopping = false;
  let closing: Promise<void> | undefined;
  const closeWhenDrained = (): void => {
    if (stopping && inFlight === 0) server.closeAllConnections();
  };
  server.on("request", (_req, res) => {
    inFlight += 1;
    res.once("close", () => {
      inFlight -= 1;
      closeWhenDrained();
    });
  });

  return {
    url: formatUrl(options.host, port),
    port,
    close() {
      stopping = true;
      closing ??= new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeIdleConnections();
        closeWhenDrained();
      });
      return closing;
    },
  };
}
