// /_mock/events: the server-sent events stream (../events.ts), sized by the config.

import express from "express";
import type { ResolvedConfig } from "../../config/resolve.js";
import { streamEvents, type EventSources } from "../events.js";

export type EventRoutesDeps = Pick<EventSources, "outbox" | "journal" | "webhooks" | "onReset" | "shutdown"> & {
  config: Pick<ResolvedConfig, "maxEventStreams" | "eventBufferBytes">;
};

export function createEventRoutes(deps: EventRoutesDeps): express.Router {
  const router = express.Router();
  router.get(
    "/_mock/events",
    streamEvents({
      outbox: deps.outbox,
      journal: deps.journal,
      webhooks: deps.webhooks,
      onReset: deps.onReset,
      shutdown: deps.shutdown,
      maxStreams: deps.config.maxEventStreams,
      bufferBytes: deps.config.eventBufferBytes,
    }),
  );
  return router;
}
