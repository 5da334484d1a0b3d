// GET /_mock/events: captured messages, their lifecycle events, webhook attempts, journal entries
// and resets as server-sent events.

import type { Request, Response } from "express";
import type { Journal } from "../domain/journal.js";
import type { Outbox } from "../domain/outbox.js";
import type { WebhookControl } from "../domain/webhooks.js";
import { ApiError } from "../errors.js";

export interface EventSources {
  outbox: Pick<Outbox, "onCapture" | "onEvent" | "onClear">;
  journal: Pick<Journal, "onRecord">;
  webhooks: Pick<WebhookControl, "onDelivery">;
  /** Calls the listener after every reset of the whole mock; returns the unsubscribe. */
  onReset: (listener: () => void) => () => void;
  /** Aborted when the server closes, so open streams end with it. */
  shutdown: AbortSignal;
  /** The streams open on the whole mock, whichever sandbox each follows: one past their max is refused with 503. */
  openStreams: OpenStreams;
  /** Events a stream may have waiting for its client before it is dropped. */
  bufferBytes: number;
  heartbeatMs?: number;
}

/**
 * How many event streams are open on one mock. Each sandbox's /_mock/events has a stream set of
 * its own, and a count in each let 7 sandboxes hold 700 streams open under max_event_streams 100.
 */
export interface OpenStreams {
  readonly max: number;
  /** Counts one more stream, unless `max` are open: then false, and nothing is counted. */
  take(): boolean;
  /** Counts one stream fewer. */
  release(): void;
}

export function createOpenStreams(max: number): OpenStreams {
  let open = 0;
  return {
    max,
    take() {
      if (open >= max) return false;
      open += 1;
      return true;
    },
    release() {
      open = Math.max(0, open - 1);
    },
  };
}

/** One open stream: what its socket has not taken yet waits here, counted. */
interface Stream {
  res: Response;
  waiting: Buffer[];
  waitingBytes: number;
}

function eventBytes(event: string, data: unknown): Buffer {
  return Buffer.from(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

/**
 * The streams share one subscription to the stores: each event is serialized and encoded once
 * and the same bytes go to every stream (with 200 streams, serializing per stream cost 11 ms
 * of CPU per send). A stream whose client does not read gets nothing more written to its
 * socket; its events wait, and once they pass `bufferBytes` it is told (`event: dropped`) and
 * ended: 20 clients that never read held 4.2 GB before.
 */
export function streamEvents(sources: EventSources) {
  const streams = new Set<Stream>();
  let unsubscribers: (() => void)[] = [];
  let heartbeat: NodeJS.Timeout | undefined;

  /** Lets go of a stream and what waits for it; false when it was already gone. */
  const forget = (stream: Stream): boolean => {
    if (!streams.delete(stream)) return false;
    sources.openStreams.release();
    stream.waiting = [];
    stream.waitingBytes = 0;
    if (streams.size === 0) stopListening();
    return true;
  };

  const end = (stream: Stream): void => {
    forget(stream);
    stream.res.end();
  };

  const drop = (stream: Stream): void => {
    const reason = `this stream fell more than ${sources.bufferBytes} bytes (event_buffer_bytes) behind and was dropped; reconnect and reload the lists`;
    forget(stream);
    stream.res.end(eventBytes("dropped", { reason }));
    // A client that reads nothing would keep the socket and its last bytes forever.
    setTimeout(() => stream.res.destroy(), 10_000).unref();
  };

  const flush = (stream: Stream): void => {
    while (stream.waiting.length > 0 && !stream.res.writableNeedDrain) {
      const chunk = stream.waiting.shift() as Buffer;
      stream.waitingBytes -= chunk.length;
      stream.res.write(chunk);
    }
  };

  const write = (stream: Stream, chunk: Buffer): void => {
    if (stream.waiting.length === 0 && !stream.res.writableNeedDrain) {
      stream.res.write(chunk);
      return;
    }
    stream.waiting.push(chunk);
    stream.waitingBytes += chunk.length;
    // One event always may wait, however large: a client that reads is never dropped for
    // the size of a single message.
    if (stream.waitingBytes > sources.bufferBytes && stream.waiting.length > 1) drop(stream);
  };

  const broadcast = (chunk: Buffer): void => {
    for (const stream of [...streams]) write(stream, chunk);
  };

  const onShutdown = (): void => {
    for (const stream of [...streams]) end(stream);
  };

  function startListening(): void {
    heartbeat = setInterval(() => broadcast(Buffer.from(": heartbeat\n\n")), sources.heartbeatMs ?? 15_000);
    unsubscribers = [
      sources.outbox.onCapture((message) => broadcast(eventBytes("message", message))),
      // The event and the state it led to, not the whole message: the page patches what it shows.
      sources.outbox.onEvent((message, event) => broadcast(eventBytes("event", { message_id: message.id, status: message.status, event }))),
      // Attempts follow the clock and real time, not requests: the page learns of them only here.
      sources.webhooks.onDelivery((delivery) => broadcast(eventBytes("delivery", delivery))),
      sources.journal.onRecord((entry) => broadcast(eventBytes("request", entry))),
      sources.outbox.onClear(() => broadcast(eventBytes("reset", { scope: "messages" }))),
      sources.onReset(() => broadcast(eventBytes("reset", { scope: "all" }))),
    ];
    // One listener for all streams: one per stream passed Node's limit of 10 and warned.
    sources.shutdown.addEventListener("abort", onShutdown, { once: true });
  }

  function stopListening(): void {
    clearInterval(heartbeat);
    for (const unsubscribe of unsubscribers) unsubscribe();
    unsubscribers = [];
    sources.shutdown.removeEventListener("abort", onShutdown);
  }

  return (req: Request, res: Response): void => {
    if (sources.shutdown.aborted) throw new ApiError("server_error", "sendmock is closing", { status: 503 });
    if (!sources.openStreams.take()) {
      throw new ApiError("server_error", `Too many event streams: at most ${sources.openStreams.max} are open (max_event_streams); close one and retry`, {
        status: 503,
        headers: { "Retry-After": "1" },
      });
    }
    res.status(200).set({
      "Content-Type": "text/event-stream; charset=utf-8",
      "Cache-Control": "no-cache, no-transform",
      Connection: "keep-alive",
      // Proxies such as nginx would otherwise hold events back in a buffer.
      "X-Accel-Buffering": "no",
    });
    res.flushHeaders();
    res.write("retry: 2000\n: connected\n\n");
    const stream: Stream = { res, waiting: [], waitingBytes: 0 };
    if (streams.size === 0) startListening();
    streams.add(stream);
    res.on("drain", () => flush(stream));
    req.once("close", () => forget(stream));
  };
}
