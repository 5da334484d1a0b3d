// What one replica tells the others: captures, lifecycle events, clears, drops, journal records,
// webhook attempts, settings changes, clock moves and sandboxes' names, over Redis pub/sub.
// Every replica, the sender included, hears each event once and hands it to its own listeners,
// so waits, wait_ms and /_mock/events behave the same whichever replica took the request.

import type { CapturedMessage, JournalEntry, MessageEvent, WebhookDelivery } from "../../wire.js";
import type { RedisConnection } from "./connection.js";
import { SANDBOX_KEYS } from "./key-prefix.js";

export type StoreEvent =
  | { type: "capture"; message: CapturedMessage }
  | { type: "event"; message: CapturedMessage; event: MessageEvent }
  | { type: "clear" }
  /** Messages of this sandbox dropped for the room another sandbox's message took (the bounds are shared). */
  | { type: "dropped"; ids: string[] }
  | { type: "record"; entry: JournalEntry }
  | { type: "delivery"; delivery: WebhookDelivery }
  /** The run-time settings changed: every change in force, as field and JSON value pairs, numbered in the order they were made. */
  | { type: "settings"; version: number; changes: string[] }
  | { type: "clock"; offsetMs: number; version: number }
  /** A sandbox's name claimed for the first time, one name released, or every name forgotten (the registry's, on the environment's channel). */
  | { type: "claimed"; name: string }
  | { type: "released"; name: string }
  | { type: "forgotten" };

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

/** One channel's listeners, by type, and the handing of a notice to them. */
function createListeners() {
  const listeners = new Map<StoreEvent["type"], Set<(event: StoreEvent) => void>>();
  const listeningAgainListeners = new Set<() => void>();
  return {
    tell(text: string): void {
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
    },
    tellListeningAgain(): void {
      for (const listener of listeningAgainListeners) listener();
    },
    on: <T extends StoreEvent["type"]>(type: T, listener: (event: Extract<StoreEvent, { type: T }>) => void): (() => void) => {
      let forType = listeners.get(type);
      if (!forType) {
        forType = new Set();
        listeners.set(type, forType);
      }
      const untyped = listener as (event: StoreEvent) => void;
      forType.add(untyped);
      return () => forType.delete(untyped);
    },
    onListeningAgain: (listener: () => void): (() => void) => {
      listeningAgainListeners.add(listener);
      return () => listeningAgainListeners.delete(listener);
    },
  };
}

/**
 * Subscribes with `subscribe` (a repeat changes nothing) now and after each reconnection, and
 * calls `listeningAgain` once listening again. ioredis subscribes again by itself once it is
 * back, but says nothing when that is done: once this subscription gets a response, the
 * connection listens, and nothing published from then on can be missed. Listeners read shared
 * state again over the command connection, which may come back after this one: until it does,
 * they are not told (a read would fail, and nothing would retry it). Returns the stop.
 */
async function listenOn(connection: RedisConnection, subscribe: () => Promise<unknown>, listeningAgain: () => void): Promise<() => void> {
  let waitingForCommands = false;
  const tellListeningAgain = (): void => {
    waitingForCommands = false;
    listeningAgain();
  };
  const onReconnected = (): void => {
    subscribe().then(
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
  await subscribe();
  // Registered after the first connection, so only a reconnection calls them.
  connection.subscriber.on("ready", onReconnected);
  connection.commands.on("ready", onCommandsReady);
  return () => {
    connection.subscriber.off("ready", onReconnected);
    connection.commands.off("ready", onCommandsReady);
  };
}

export async function openStoreChannel(connection: RedisConnection): Promise<StoreChannel> {
  const name = connection.key("events");
  const listeners = createListeners();
  const onMessage = (channel: string, text: string): void => {
    if (channel === name) listeners.tell(text);
  };
  connection.subscriber.on("message", onMessage);
  const stopListening = await listenOn(
    connection,
    () => connection.subscriber.subscribe(name),
    () => listeners.tellListeningAgain(),
  );
  return {
    name,
    on: listeners.on,
    onListeningAgain: listeners.onListeningAgain,
    async close() {
      connection.subscriber.off("message", onMessage);
      stopListening();
      await connection.subscriber.unsubscribe(name).catch(() => undefined);
    },
  };
}

/** The channels of every named sandbox of an environment, on one subscription. */
export interface SandboxChannels {
  /** The channel of the sandbox whose keys `scoped` names (`withKeyPrefix`): no subscription of its own; `close` only stops hearing it. */
  channelOf(scoped: RedisConnection): StoreChannel;
  close(): Promise<void>;
}

/** `*`, `?`, `[`, `]` and `\` taken as themselves in a pattern: a key prefix may hold them. */
const escapeGlob = (text: string): string => text.replace(/[*?[\]\\]/g, "\\$&");

/**
 * One pattern subscription per replica for every named sandbox's channel
 * (`<prefix>sandbox:*:events`; names hold no `:`), each notice handed to the channel of its
 * name if this replica built that sandbox: a sandbox, idle or not, subscribes to nothing of its
 * own, and a reconnection subscribes again once, not once per sandbox. `connection` is the
 * environment's. A replica hears the notices of sandboxes it has not built too, dropped at the
 * lookup of their name.
 */
export async function openSandboxChannels(connection: RedisConnection): Promise<SandboxChannels> {
  const pattern = `${escapeGlob(connection.key(SANDBOX_KEYS))}*:events`;
  const byName = new Map<string, ReturnType<typeof createListeners>>();
  const onMessage = (subscribed: string, channel: string, text: string): void => {
    if (subscribed === pattern) byName.get(channel)?.tell(text);
  };
  connection.subscriber.on("pmessage", onMessage);
  const stopListening = await listenOn(
    connection,
    () => connection.subscriber.psubscribe(pattern),
    () => {
      for (const listeners of byName.values()) listeners.tellListeningAgain();
    },
  );
  return {
    channelOf(scoped) {
      const name = scoped.key("events");
      const listeners = createListeners();
      byName.set(name, listeners);
      return {
        name,
        on: listeners.on,
        onListeningAgain: listeners.onListeningAgain,
        close() {
          if (byName.get(name) === listeners) byName.delete(name);
          return Promise.resolve();
        },
      };
    },
    async close() {
      byName.clear();
      connection.subscriber.off("pmessage", onMessage);
      stopListening();
      await connection.subscriber.punsubscribe(pattern).catch(() => undefined);
    },
  };
}
