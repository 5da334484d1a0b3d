// POST /send's way, in one place: the edge reads node:http's request into a call, the pipeline of the
// mode (the local send, or the proxy's relay) makes an outcome of it, the writer writes and journals it.

import type { IncomingMessage, ServerResponse } from "node:http";
import type { SendPipeline } from "../send/exchange.js";
import type { SendEdge } from "./send-edge.js";
import type { SendWriter } from "./send-writer.js";

export interface SendRouteParts {
  edge: SendEdge;
  pipeline: SendPipeline;
  writer: SendWriter;
  /** Told of an error no step expected (a bug), with its stack; the client still gets a response when it can. */
  reportUnexpected: (error: unknown) => void;
}

/** The send operation as the server and the app take it: whether a request is its, and its handling. */
export interface SendRoute {
  owns(req: IncomingMessage): boolean;
  handle(req: IncomingMessage, res: ServerResponse): void;
}

export function createSendRoute({ edge, pipeline, writer, reportUnexpected }: SendRouteParts): SendRoute {
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { call, clientGone } = await edge.read(req, res);
    const outcome = await pipeline(call, clientGone);
    await writer(call, outcome, req, res, edge.corsHeaders(req));
  }

  return {
    owns: (req) => edge.owns(req),
    handle(req, res) {
      handle(req, res).catch((error: unknown) => {
        // Every step's error is a response already; one here is the writer's own, and nothing can be written safely.
        reportUnexpected(error);
        if (!res.headersSent) {
          res.writeHead(500, { "content-type": "text/plain; charset=utf-8", "x-content-type-options": "nosniff" });
          res.end("sendmock failed to answer; its stderr says why");
        } else res.destroy();
      });
    },
  };
}
