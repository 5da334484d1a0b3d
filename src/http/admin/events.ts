// /_mock/events: the server-sent events stream (../events.ts), sized by the config and counted once per mock.

import express from "express";
import type { ResolvedConfig } from "../../config/resolve.js";
import { streamEvents, type EventSources } from "../events.js";

/** `openStreams` is the mock's one count (max_event_streams), whichever sandbox's router is built over these deps. */
export type EventRoutesDeps = Pick<EventSources, "outbox" | "journal" | "webhooks" | "onReset" | "shutdown" | "openStreams"> & {
  config: Pick<ResolvedConfig, "eventBufferBytes">;
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
      openStreams: deps.openStreams,
      bufferBytes: deps.config.eventBufferBytes,
    }),
  );
  return router;
}
