// What one replica tells the others: captures, lifecycle events, clears, journal records and
// clock moves, over Redis pub/sub.
// Every replica, the sender included, hears each event once and hands it to its own listeners,
// so waits, wait_ms and /_mock/events behave the same whichever replica took the request.

import type { CapturedMessage, JournalEntry, MessageEvent } from "../../wire.js";
import type { RedisConnection } from "./connection.js";

export type StoreEvent =
  | { type: "capture"; message: CapturedMessage }
  | { type: "event"; message: CapturedMessage; event: MessageEvent }
  | { type: "clear" }
  | { type: "record"; entry: JournalEntry }
  | { type: "clock"; offsetMs: number; version: number };

export interface StoreChannel {
  /** The channel's prefixed name, for scripts that publish atomically with their writes. */
  readonly name: string;
  on<T extends StoreEvent["type"]>(type: T, listener: (event: Extract<StoreEvent, { type: T }>) => void): () => void;
  close(): Promise<void>;
}

export async function openStoreChannel(connection: RedisConnection): Promise<StoreChannel> {
  const name = connection.key("events");
  const listeners = new Map<StoreEvent["type"], Set<(event: StoreEvent) => void>>();
  const onMessage = (channel: string, text: string): void => {
    if (channel !== name) return;
    let event: StoreEvent;
    try {
      event = JSON.parse(text) as StoreEvent;
    } catch {
      return;
    }
    for (const listener of listeners.get(event.type) ?? []) listener(event);
  };
  connection.subscriber.on("message", onMessage);
  await connection.subscriber.subscribe(name);

  return {
    name,
    on(type, listener) {
      let forType = listeners.get(type);
      if (!forType) {
        forType = new Set();
        listeners.set(type, forType);
      }
      const untyped = listener as (event: StoreEvent) => void;
      forType.add(untyped);
      return () => forType.delete(untyped);
    },
    async close() {
      connection.subscriber.off("message", onMessage);
      await connection.subscriber.unsubscribe(name).catch(() => undefined);
    },
  };
}
