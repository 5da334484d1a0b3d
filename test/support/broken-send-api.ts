// Send APIs broken in exactly one way, for `sendmock check`: a real sendmock behind a small relay
// that changes one thing about the requests it passes on or the responses it gives back.

import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { startSendMock, type RunningSendMock, type SendMockOptions } from "../../src/index.js";

export type Defect =
  | "server error on non-ASCII data"
  | "accepts a number as to"
  | "ignores auth"
  | "405 without Allow"
  | "errors as text/plain"
  | "429 without Retry-After"
  | "an extra field in a 200"
  | "slow";

export interface RelayedResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface Relayed {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
}

/**
 * How long the `slow` defect holds each response: over the 25 ms --max-response-ms its test sets,
 * and no longer, since `check` sends some hundred requests to it in turn (5.4 s at 50 ms).
 */
export const SLOW_MS = 30;

function parsed(body: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(body);
    return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const bearer = (headers: Record<string, string>): boolean => /^Bearer +\S+ *$/i.test(headers.authorization ?? "");

/** Each defect: a change to the request before sendmock sees it, or a response given instead of or after sendmock's. */
const DEFECTS: Record<
  Defect,
  { options?: SendMockOptions; before?: (request: Relayed) => Relayed | RelayedResponse; after?: (response: RelayedResponse) => RelayedResponse }
> = {
  // A parser that crashes: past auth, a body whose `data` holds anything but ASCII is a 500.
  "server error on non-ASCII data": {
    before: (request) => {
      const data = parsed(request.body)?.data;
      const text = data !== null && typeof data === "object" ? JSON.stringify(data) : "";
      if (request.method === "POST" && bearer(request.headers) && !/^\p{ASCII}*$/u.test(text)) {
        const body = JSON.stringify({ success: false, error: { code: "server_error", message: "renderer crashed" } });
        return { status: 500, headers: { "content-type": "application/json" }, body };
      }
      return request;
    },
  },
  // A validator that reads `to` only when it is a string: a number passes as if it were an address.
  "accepts a number as to": {
    before: (request) => {
      const body = parsed(request.body);
      return typeof body?.to === "number" ? { ...request, body: JSON.stringify({ ...body, to: "number@example.invalid" }) } : request;
    },
  },
  "ignores auth": { before: (request) => ({ ...request, headers: { ...request.headers, authorization: "Bearer anything-goes" } }) },
  "405 without Allow": { after: (response) => (response.status === 405 ? { ...response, headers: omit(response.headers, "allow") } : response) },
  "errors as text/plain": {
    after: (response) => (response.status >= 400 ? { ...response, headers: { ...response.headers, "content-type": "text/plain; charset=utf-8" } } : response),
  },
  // A limit spent after the first two requests of a key, its 429 missing Retry-After.
  "429 without Retry-After": {
    options: { rateLimit: { requests: 1, perSeconds: 86_400, burst: 2 } },
    after: (response) => (response.status === 429 ? { ...response, headers: omit(response.headers, "retry-after") } : response),
  },
  "an extra field in a 200": {
    after: (response) => (response.status === 200 ? { ...response, body: JSON.stringify({ ...parsed(response.body), debug: true }) } : response),
  },
  slow: {},
};

function omit(headers: Record<string, string>, name: string): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([key]) => key !== name));
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => resolve(body));
    req.on("error", reject);
  });
}

async function relay(target: string, request: Relayed): Promise<RelayedResponse> {
  const response = await fetch(`${target}${request.path}`, {
    method: request.method,
    headers: omit(omit(request.headers, "host"), "content-length"),
    body: request.method === "GET" || request.method === "HEAD" ? undefined : request.body,
  });
  const headers = omit(omit(Object.fromEntries(response.headers), "content-length"), "transfer-encoding");
  return { status: response.status, headers, body: await response.text() };
}

export interface BrokenSendApi {
  url: string;
  /** The sendmock behind the relay. */
  mock: RunningSendMock;
  close(): Promise<void>;
}

/** A sendmock (shape a unless `options` say otherwise) behind a relay with one defect; `null` relays unchanged. */
export async function brokenSendApi(defect: Defect | null, options: SendMockOptions = {}): Promise<BrokenSendApi> {
  const behaviour = defect === null ? {} : DEFECTS[defect];
  const mock = await startSendMock({ port: 0, watchTemplates: false, ...behaviour.options, ...options });
  const server: Server = createServer((req, res) => {
    void (async () => {
      const incoming: Relayed = {
        method: req.method ?? "GET",
        path: req.url ?? "/",
        headers: req.headers as Record<string, string>,
        body: await readBody(req),
      };
      const changed = behaviour.before?.(incoming) ?? incoming;
      let response = "status" in changed ? changed : await relay(mock.url, changed);
      response = behaviour.after?.(response) ?? response;
      if (defect === "slow") await sleep(SLOW_MS);
      res.writeHead(response.status, response.headers).end(response.body);
    })().catch((error: unknown) => res.writeHead(502, { "content-type": "text/plain" }).end(String(error)));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    mock,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await mock.close();
    },
  };
}
