// GET /_mock/events: captured messages, journal entries and resets as server-sent events.

import type { Request, Response } from "express";
import type { Journal } from "../domain/journal.js";
import type { Outbox } from "../domain/outbox.js";

export interface EventSources {
  outbox: Outbox;
  journal: Journal;
  /** Calls the listener after every reset of the whole mock; returns the unsubscribe. */
  onReset: (listener: () => void) => () => void;
  /** Aborted when the server closes, so open streams end with it. */
  shutdown: AbortSignal;
  heartbeatMs?: number;
}

export function streamEvents(sources: EventSources) {
  return (req: Request, res: Response): void => {
    res.status(200).set({
      "Content-Type": "text/event-stream; charset=utf-8",
      "Cache-Control": "no-cache, no-transform",
      Connection: "keep-alive",
      // Proxies such as nginx would otherwise hold events back in a buffer.
      "X-Accel-Buffering": "no",
    });
    res.flushHeaders();
    const send = (event: string, data: unknown): void => {
      res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    };
    res.write("retry: 2000\n: connected\n\n");

    const heartbeat = setInterval(() => res.write(": heartbeat\n\n"), sources.heartbeatMs ?? 15_000);
    const unsubscribers = [
      sources.outbox.onCapture((message) => send("message", message)),
      sources.journal.onRecord((entry) => send("request", entry)),
      sources.outbox.onClear(() => send("reset", { scope: "messages" })),
      sources.onReset(() => send("reset", { scope: "all" })),
    ];
    const stop = (): void => {
      clearInterval(heartbeat);
      for (const unsubscribe of unsubscribers) unsubscribe();
      sources.shutdown.removeEventListener("abort", end);
    };
    const end = (): void => {
      stop();
      res.end();
    };
    req.once("close", stop);
    sources.shutdown.addEventListener("abort", end, { once: true });
  };
}
