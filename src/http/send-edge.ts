// POST /send at the edge: which requests are the send operation's, and node:http's request read into a plain value.

import type { IncomingMessage, ServerResponse } from "node:http";
import { parse as parseQuery } from "node:querystring";
import bodyParser from "body-parser";
import type { SendCall } from "../send/exchange.js";

export interface SendEdgeDeps {
  /** Whether the pipeline is told of a client that goes away mid-request (the proxy aborts its upstream call). */
  watchClient: boolean;
  /** Whether `/sandbox/NAME/send` is a send too: the local mock's sandboxes; the proxy relays `/send` alone. */
  sandboxPaths: boolean;
  bodyLimitBytes: number;
  corsOrigins: readonly string[];
}

/** A request read: the call the pipeline takes, and, when the edge watches the client, the signal of its going away. */
export interface ReadCall {
  call: SendCall;
  clientGone?: AbortSignal;
}

export interface SendEdge {
  /** Whether a request is the edge's: any method on /send, but a CORS preflight when cors_origins is set. */
  owns(req: IncomingMessage): boolean;
  read(req: IncomingMessage, res: ServerResponse): Promise<ReadCall>;
  /** The CORS headers a response to this request carries (none without cors_origins). */
  corsHeaders(req: IncomingMessage): Readonly<Record<string, string>>;
}

interface ReadBody {
  body: Buffer | undefined;
  problem: unknown;
}

const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

/** The path of a URL, and its query string (empty when none). */
function splitUrl(url: string): [string, string] {
  const mark = url.indexOf("?");
  return mark === -1 ? [url, ""] : [url.slice(0, mark), url.slice(mark + 1)];
}

/** `/send` as express routed it: case-insensitive, with or without a trailing slash. */
const SEND_PATH = /^\/send\/?$/i;
/** A sandbox base URL's `/sandbox/NAME/send` (docs/sandboxes.md): NAME is any one segment here, and the sandbox step checks it. */
const SANDBOX_SEND_PATH = /^\/sandbox\/([^/]*)\/send\/?$/i;

/** Whether `path` is the send operation's, and the sandbox a base URL's path names (undefined for `/send`). */
function sendPathOf(path: string): { sandbox?: string } | undefined {
  if (path === "/send" || SEND_PATH.test(path)) return {};
  const named = SANDBOX_SEND_PATH.exec(path);
  return named === null ? undefined : { sandbox: named[1] };
}

export function createSendEdge(deps: SendEdgeDeps): SendEdge {
  // body-parser reads for express.raw too: Content-Encoding (gzip, deflate, br), the limit, and a
  // client that stops sending are handled as they were when express read /send's bodies.
  // Typed as what it is: connect's handler type asks for its own IncomingMessage class, which a plain request from node:http is not.
  const readRaw = bodyParser.raw({ limit: deps.bodyLimitBytes, type: () => true }) as (
    req: IncomingMessage,
    res: ServerResponse,
    next: (problem?: unknown) => void,
  ) => void;
  const corsOrigins = new Set(deps.corsOrigins);

  function readBody(req: IncomingMessage, res: ServerResponse): Promise<ReadBody> {
    return new Promise((resolve) => {
      readRaw(req, res, (problem?: unknown) => {
        // body-parser leaves what it read on the request, as express expects.
        const raw: unknown = (req as unknown as { body?: unknown }).body;
        resolve({ body: Buffer.isBuffer(raw) ? raw : undefined, problem });
      });
    });
  }

  /** What the `cors` package adds to a simple request's response, for an origin in cors_origins. */
  function corsHeaders(req: IncomingMessage): Readonly<Record<string, string>> {
    if (corsOrigins.size === 0) return NO_HEADERS;
    const origin = req.headers.origin;
    return origin !== undefined && corsOrigins.has(origin) ? { "access-control-allow-origin": origin, vary: "Origin" } : { vary: "Origin" };
  }

  async function read(req: IncomingMessage, res: ServerResponse): Promise<ReadCall> {
    const arrivedAt = Date.now();
    const startedAt = performance.now();
    const [path, queryText] = splitUrl(req.url ?? "/");
    const method = req.method ?? "GET";
    // Only POST takes a body: another method's is left unread, and the journal says so.
    const received: ReadBody = method === "POST" ? await readBody(req, res) : { body: undefined, problem: undefined };
    const call: SendCall = {
      method,
      path,
      pathSandbox: sendPathOf(path)?.sandbox,
      query: queryText === "" ? {} : (parseQuery(queryText) as Record<string, string | string[]>),
      headers: req.headers,
      rawHeaders: req.rawHeaders,
      body: received.body,
      bodyProblem: received.problem,
      hadBody: req.headers["transfer-encoding"] !== undefined || req.headers["content-length"] !== undefined,
      arrivedAt,
      startedAt,
    };
    if (!deps.watchClient) return { call };
    const gone = new AbortController();
    res.once("close", () => gone.abort(new Error("client closed the request")));
    return { call, clientGone: gone.signal };
  }

  return {
    owns(req) {
      const send = sendPathOf(splitUrl(req.url ?? "/")[0]);
      if (send === undefined || (send.sandbox !== undefined && !deps.sandboxPaths)) return false;
      return !(req.method === "OPTIONS" && corsOrigins.size > 0);
    },
    read,
    corsHeaders,
  };
}
