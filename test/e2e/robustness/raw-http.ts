// Raw HTTP over a socket, for requests fetch() will not send: trickled, oversized or malformed.

import { once } from "node:events";
import net from "node:net";

export interface RawResponse {
  status: number;
  /** Header names in lower case. */
  headers: Record<string, string>;
  body: string;
}

/** The first response in `text`, which holds everything the server wrote on one connection. */
export function parseRawResponse(text: string): RawResponse {
  const headEnd = text.indexOf("\r\n\r\n");
  if (headEnd === -1) throw new Error(`not an HTTP response: ${JSON.stringify(text)}`);
  const [statusLine = "", ...headerLines] = text.slice(0, headEnd).split("\r\n");
  const status = /^HTTP\/1\.1 (\d{3})/.exec(statusLine)?.[1];
  if (status === undefined) throw new Error(`not an HTTP status line: ${JSON.stringify(statusLine)}`);
  const headers = Object.fromEntries(
    headerLines.map((line) => {
      const colon = line.indexOf(":");
      return [line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()];
    }),
  );
  const rest = text.slice(headEnd + 4);
  const length = headers["content-length"];
  return { status: Number(status), headers, body: length === undefined ? rest : rest.slice(0, Number(length)) };
}

/** A connected socket that collects what the server writes and notes when it closes. */
export interface OpenConnection {
  socket: net.Socket;
  received: () => string;
  /** Resolves with the time (performance.now()) the server's side closed. */
  closed: Promise<number>;
}

export async function openConnection(port: number): Promise<OpenConnection> {
  const socket = net.connect(port, "127.0.0.1");
  let received = "";
  socket.setEncoding("utf8");
  socket.on("data", (chunk: string) => (received += chunk));
  // A reset after the server's response is still a close; the response was already read.
  socket.on("error", () => undefined);
  const closed = once(socket, "close").then(() => performance.now());
  await once(socket, "connect");
  return { socket, received: () => received, closed };
}

/** Writes `request` at once and returns everything the server wrote until it closed the connection. */
export async function exchange(port: number, request: string | Buffer): Promise<string> {
  const connection = await openConnection(port);
  connection.socket.write(request);
  await connection.closed;
  return connection.received();
}
