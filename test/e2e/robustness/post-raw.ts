// A raw HTTP client for the robustness tests: the exact bytes and any header a client could
// send. fetch refuses some headers, and supertest re-serializes a body sent as JSON.

import http from "node:http";

export interface RawRequest {
  body: string | Uint8Array;
  /** Header name -> value; a list sends the header once per item. Node adds Host and Content-Length. */
  headers: Record<string, string | string[]>;
}

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/** POST `url` with exactly `request`; `agent` keeps a socket alive across calls. */
export function postRaw(url: string, request: RawRequest, agent?: http.Agent): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const outgoing = http.request(url, { method: "POST", agent, headers: request.headers }, (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
      incoming.on("error", reject);
      incoming.on("end", () => {
        resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, text: Buffer.concat(chunks).toString("utf8") });
      });
    });
    outgoing.on("error", reject);
    outgoing.end(request.body);
  });
}
