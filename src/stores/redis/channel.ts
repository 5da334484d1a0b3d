// What one replica tells the others: captures, lifecycle events, clears, journal records,
// webhook attempts, settings changes and clock moves, over Redis pub/sub.
// Every replica, the sender included, hears each event once and hands it to its own listeners,
// so waits, wait_ms and /_mock/events behave the same whichever replica took the request.

import type { CapturedMessage, JournalEntry, MessageEvent, WebhookDelivery } from "../../wire.js";
import type { RedisConnection } from "./connection.js";

export type StoreEvent =
  | { type: "capture"; message: CapturedMessage }
  | { type: "event"; message: CapturedMessage; event: MessageEvent }
  | { type: "clear" }
  | { type: "record"; entry: JournalEntry }
  | { type: "delivery"; delivery: WebhookDelivery }
  /** The run-time settings changed: every change in force, as field and JSON value pairs, numbered in the order they were made. */
  | { type: "settings"; version: number; changes: string[] }
  | { type: "clock"; offsetMs: number; version: number };

export interface StoreChannel {
  /** The channel's prefixed name, for scripts that publish atomically with their writes. */
  readonly name: string;
  on<T extends StoreEvent["type"]>(type: T, listener: (event: Extract<StoreEvent, { type: T }>) => void): () => void;
  /**
   * Called when the channel listens again after a lost connection: what was published while it
   * was away is lost, so a listener that keeps a copy of shared state reads it again.
   */
  onListeningAgain(listener: () => void): () => void;
  close(): Promise<void>;
}

/** The type of a notice written as `{"type":"…",…}`; a script's cjson may put it elsewhere, and that notice is parsed to learn it. */
const TYPE_OPENING = /^\{"type":"([a-z]+)"/;

export async function openStoreChannel(connection: RedisConnection): Promise<StoreChannel> {
  const name = connection.key("events");
  const listeners = new Map<StoreEvent["type"], Set<(event: StoreEvent) => void>>();
  const onMessage = (channel: string, text: string): void => {
    if (channel !== name) return;
    // Most notices open with their type: one nobody here listens to is not parsed. Each send is
    // told as three whole messages (its capture and two events), parsed by every replica even
    // with no event stream or wait open (onMessage, JSON.parse included, was 1% of a profile).
    const type = TYPE_OPENING.exec(text)?.[1] as StoreEvent["type"] | undefined;
    if (type !== undefined && (listeners.get(type)?.size ?? 0) === 0) return;
    let event: StoreEvent;
    try {
      event = JSON.parse(text) as StoreEvent;
    } catch {
      return;
    }
    for (const listener of listeners.get(event.type) ?? []) listener(event);
  };
  const listeningAgainListeners = new Set<() => void>();
  // Listeners read shared state again over the command connection, which may come back after
  // this one: until it does, they are not told (a read would fail, and nothing would retry it).
  let waitingForCommands = false;
  const tellListeningAgain = (): void => {
    waitingForCommands = false;
    for (const listener of listeningAgainListeners) listener();
  };
  // ioredis subscribes again by itself once it is back, but says nothing when that is done: once
  // this SUBSCRIBE (a repeat for a channel already subscribed changes nothing) gets a response, the
  // connection listens, and nothing published from then on can be missed.
  const onReconnected = (): void => {
    connection.subscriber.subscribe(name).then(
      () => {
        if (connection.commands.status === "ready") tellListeningAgain();
        else waitingForCommands = true;
      },
      // Lost again already: the next reconnection tries again.
      () => undefined,
    );
  };
  const onCommandsReady = (): void => {
    if (waitingForCommands) tellListeningAgain();
  };
  connection.subscriber.on("message", onMessage);
  await connection.subscriber.subscribe(name);
  // Registered after the first connection, so only a reconnection calls them.
  connection.subscriber.on("ready", onReconnected);
  connection.commands.on("ready", onCommandsReady);

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
    onListeningAgain(listener) {
      listeningAgainListeners.add(listener);
      return () => listeningAgainListeners.delete(listener);
    },
    async close() {
      connection.subscriber.off("message", onMessage);
      connection.subscriber.off("ready", onReconnected);
      connection.commands.off("ready", onCommandsReady);
      await connection.subscriber.unsubscribe(name).catch(() => undefined);
    },
  };
}
