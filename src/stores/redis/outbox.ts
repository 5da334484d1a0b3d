// The outbox in Redis: a list of small match keys, newest first, beside a hash of the messages'
// JSON by id, and each message's status and lifecycle events in hashes of their own. Adding,
// trimming to the bounds every sandbox shares, counting drops and telling the other replicas happen in one script, so
// no replica ever sees a half-added message; so do recording an event and telling them, and
// deleting one message. The word index for `q` is each replica's own (replica-word-index.ts).

import {
  cutToBytes,
  matchKeysOf,
  predicateBeyondTo,
  searchTextOf,
  textSearch,
  waitForCapture,
  type MatchKeys,
  type MessageFilter,
  type Outbox,
  type OutboxLimits,
  type SerializedMessageList,
} from "../../domain/outbox.js";
import { ReplicaWordIndex, type CapturesSince } from "../../domain/replica-word-index.js";
import type { CapturedMessage, MessageEvent, MessageStatus } from "../../wire.js";
import type { StoreChannel } from "./channel.js";
import type { RedisConnection } from "./connection.js";
import { ADD_SCRIPT, CAPTURED_SINCE_SCRIPT, CLEAR_SCRIPT, DELETE_SCRIPT, EVENT_SCRIPT, OUTBOX_KEYS } from "./outbox-scripts.js";
import { ownBound, type RedisSandboxBound } from "./shared-bounds.js";

/** The opening of a message as it is read, up to the fields of its stored text: its status and its comma-joined events. */
function messageOpening(status: string, events: string): string {
  return `{"status":${JSON.stringify(status)},"events":[${events}],`;
}

/**
 * A message as it is read: its stored text (without status and events, which change) with its
 * status and its comma-joined events put in front. Joined as text: parsing each message of a
 * page to add two fields would cost what writing stored text as it is saves.
 */
function composedMessage(rest: string, status: string, events: string): string {
  return `${messageOpening(status, events)}${rest.slice(1)}`;
}

/** Messages read per HMGET while searching text: large enough to amortize the round trip, small enough not to hold Redis up. */
const SEARCH_CHUNK = 500;

/** How a message's keys JSON begins: its id is written first. */
function keysOpening(id: string): string {
  return `${JSON.stringify({ id }).slice(0, -1)},`;
}

/** What the key list holds per message: enough to filter without reading the message. */
interface StoredKeys extends MatchKeys {
  id: string;
  /** UTF-8 bytes of the message's JSON, given back to the bytes counter when it is dropped. */
  bytes: number;
}

/**
 * `bound`: the one every sandbox's outbox shares, whose limits replace the options' capacity and
 * max_bytes (past them the oldest message of all goes, in whichever sandbox); one of its own when left out.
 */
export function createRedisOutbox(connection: RedisConnection, channel: StoreChannel, options: OutboxLimits, bound?: RedisSandboxBound): Outbox {
  const keysList = connection.key(OUTBOX_KEYS.list);
  const messagesHash = connection.key(OUTBOX_KEYS.messages);
  const droppedCounter = connection.key(OUTBOX_KEYS.dropped);
  const recipientsSet = connection.key(OUTBOX_KEYS.recipients);
  const bytesCounter = connection.key(OUTBOX_KEYS.bytes);
  // As in memory, a list of ids per lowercased `to`, newest first: the usual list (one
  // recipient's newest messages) reads a page and a length instead of every message's keys.
  const sameToPrefix = connection.key(OUTBOX_KEYS.sameTo);
  const statusHash = connection.key(OUTBOX_KEYS.status);
  const eventsHash = connection.key(OUTBOX_KEYS.events);
  const captureSequence = connection.key(OUTBOX_KEYS.captured);
  const { maxPageBytes = Number.MAX_SAFE_INTEGER } = options;
  const shared = bound ?? ownBound(connection, "outbox", { capacity: options.capacity, maxBytes: options.maxBytes ?? Number.MAX_SAFE_INTEGER });
  const { capacity, maxBytes } = shared.limits;
  const scriptKeys = [
    keysList,
    messagesHash,
    droppedCounter,
    recipientsSet,
    bytesCounter,
    statusHash,
    eventsHash,
    captureSequence,
    shared.order,
    shared.bytes,
    shared.sequence,
  ];

  const allKeys = (): Promise<StoredKeys[]> =>
    connection.run(async (redis) => (await redis.lrange(keysList, 0, -1)).map((text) => JSON.parse(text) as StoredKeys));

  /** The first `limit` items of a list, and its length. */
  const page = (list: string, limit: number): Promise<[string[], number]> =>
    connection.run((redis) =>
      Promise.all([limit < 1 ? Promise.resolve([]) : redis.lrange(list, 0, Number.isFinite(limit) ? limit - 1 : -1), redis.llen(list)]),
    );

  /** `select` for a status filter: the status lives beside the keys, so each candidate's is read. */
  async function selectByStatus(filter: MessageFilter & { status: MessageStatus }): Promise<{ ids: string[]; total: number }> {
    const { status, limit = Number.POSITIVE_INFINITY, ...rest } = filter;
    const { ids: candidates } = await select(rest);
    if (candidates.length === 0) return { ids: [], total: 0 };
    const statuses = await connection.run((redis) => redis.hmget(statusHash, ...candidates));
    const matching = candidates.filter((_id, index) => statuses[index] === status);
    return { ids: matching.slice(0, limit), total: matching.length };
  }

  /** The search texts of these messages, a chunk at a time; a message gone meanwhile is left out. */
  async function searchTextsOf(ids: readonly string[]): Promise<{ id: string; searchText: string }[]> {
    const found: { id: string; searchText: string }[] = [];
    for (let start = 0; start < ids.length; start += SEARCH_CHUNK) {
      const chunk = ids.slice(start, start + SEARCH_CHUNK);
      const texts = await connection.run((redis) => redis.hmget(messagesHash, ...chunk));
      texts.forEach((text, index) => {
        if (text !== null) found.push({ id: chunk[index] as string, searchText: searchTextOf(JSON.parse(text) as CapturedMessage) });
      });
    }
    return found;
  }

  const wordIndex = new ReplicaWordIndex(async (since): Promise<CapturesSince> => {
    const [captured, kept, keys] = (await connection.script(
      CAPTURED_SINCE_SCRIPT,
      [captureSequence, keysList],
      [since === undefined ? "" : String(since)],
    )) as [string, number, string[]];
    const messages = await searchTextsOf(keys.map((text) => (JSON.parse(text) as StoredKeys).id));
    return { captured: Number(captured), kept, messages };
  });

  /**
   * `select` for a text search. The word index names the messages that may hold `q`, and only
   * those of them the other filters leave are read, a chunk at a time, and searched in full;
   * a `q` without two letters or digits in a row reads every message the other filters leave.
   */
  async function selectByText(filter: MessageFilter, matches: (searchText: string) => boolean): Promise<{ ids: string[]; total: number }> {
    const limit = filter.limit ?? Number.POSITIVE_INFINITY;
    const [{ ids: leftByOthers }, indexed] = await Promise.all([
      select({ ...filter, q: undefined, limit: undefined }),
      wordIndex.candidates((filter.q ?? "").toLowerCase()),
    ]);
    const candidates = indexed === undefined ? leftByOthers : leftByOthers.filter((id) => indexed.has(id));
    const ids: string[] = [];
    let total = 0;
    // A message trimmed between the two reads is simply left out.
    for (const { id, searchText } of await searchTextsOf(candidates)) {
      if (!matches(searchText)) continue;
      total += 1;
      if (ids.length < limit) ids.push(id);
    }
    return { ids, total };
  }

  async function select(filter: MessageFilter): Promise<{ ids: string[]; total: number }> {
    const matches = textSearch(filter.q);
    if (matches !== undefined) return selectByText(filter, matches);
    if (filter.status !== undefined) return selectByStatus({ ...filter, status: filter.status });
    const to = filter.to?.toLowerCase();
    const rest = predicateBeyondTo(filter);
    const limit = filter.limit ?? Number.POSITIVE_INFINITY;
    if (rest === undefined && to !== undefined) {
      const [ids, total] = await page(sameToPrefix + to, limit);
      return { ids, total };
    }
    if (rest === undefined) {
      const [texts, total] = await page(keysList, limit);
      return { ids: texts.map((text) => (JSON.parse(text) as StoredKeys).id), total };
    }
    const ids: string[] = [];
    let total = 0;
    for (const keys of await allKeys()) {
      if ((to !== undefined && keys.to !== to) || !rest(keys)) continue;
      total += 1;
      if (ids.length < limit) ids.push(keys.id);
    }
    return { ids, total };
  }

  async function messagesJson(ids: string[]): Promise<string[]> {
    if (ids.length === 0) return [];
    const [found, statuses, events] = await connection.run((redis) =>
      Promise.all([redis.hmget(messagesHash, ...ids), redis.hmget(statusHash, ...ids), redis.hmget(eventsHash, ...ids)]),
    );
    // A message trimmed by another replica between the two reads is simply left out.
    return found.flatMap((rest, index) => (rest === null ? [] : [composedMessage(rest, statuses[index] ?? "queued", events[index] ?? "")]));
  }

  async function listSerialized(filter: MessageFilter = {}): Promise<SerializedMessageList> {
    const { ids, total } = await select(filter);
    const { kept, truncated } = cutToBytes(await messagesJson(ids), maxPageBytes);
    return { messages: kept, total, truncated };
  }

  const onCapture = (listener: (message: CapturedMessage) => void): (() => void) => channel.on("capture", (event) => listener(event.message));
  const onEvent = (listener: (message: CapturedMessage, event: MessageEvent) => void): (() => void) =>
    channel.on("event", (heard) => listener(heard.message, heard.event));

  return {
    async add(message) {
      // Status and events change: they live beside the message, not in its stored text.
      const rest: Partial<CapturedMessage> = { ...message };
      delete rest.status;
      delete rest.events;
      const json = JSON.stringify(rest);
      const keys: StoredKeys = { id: message.id, ...matchKeysOf(message), bytes: Buffer.byteLength(json) };
      const dropped = await connection.script(ADD_SCRIPT, scriptKeys, [
        JSON.stringify(keys),
        message.id,
        json,
        capacity,
        channel.name,
        // The notice's opening: the script puts the message's stored text after it, as every read
        // of this store composes the message. Its text is serialized once per send and sent once.
        `{"type":"capture","message":${messageOpening(message.status, message.events.map((event) => JSON.stringify(event)).join(","))}`,
        sameToPrefix,
        keys.to,
        keys.bytes,
        maxBytes,
        shared.environment,
        shared.sandbox,
      ]);
      return { dropped: dropped as string[] };
    },

    async recordEvent(id, event, status, maxEvents) {
      const response = await connection.script(EVENT_SCRIPT, scriptKeys, [
        id,
        status,
        JSON.stringify(event),
        channel.name,
        JSON.stringify(status),
        capacity,
        maxBytes,
        shared.environment,
        shared.sandbox,
        maxEvents === undefined ? "" : String(maxEvents),
      ]);
      if (!Array.isArray(response)) return undefined;
      const [json, dropped] = response as [string, string[]];
      return { message: () => JSON.parse(json) as CapturedMessage, dropped };
    },

    listSerialized,

    async list(filter = {}) {
      const { messages, total } = await listSerialized(filter);
      return { messages: messages.map((json) => JSON.parse(json) as CapturedMessage), total };
    },

    async get(id) {
      const wanted =
        id === "latest" ? await connection.run(async (redis) => (JSON.parse((await redis.lindex(keysList, 0)) ?? "null") as StoredKeys | null)?.id) : id;
      if (wanted === undefined) return undefined;
      const [json] = await messagesJson([wanted]);
      return json === undefined ? undefined : (JSON.parse(json) as CapturedMessage);
    },

    async delete(id) {
      const deleted = await connection.script(DELETE_SCRIPT, scriptKeys, [id === "latest" ? "" : keysOpening(id), sameToPrefix, shared.sandbox]);
      return typeof deleted === "string" ? deleted : undefined;
    },

    async clear() {
      await connection.script(CLEAR_SCRIPT, scriptKeys, [sameToPrefix, channel.name, JSON.stringify({ type: "clear" }), shared.sandbox]);
    },

    waitFor(filter = {}, waitOptions = {}) {
      return waitForCapture({
        filter,
        options: waitOptions,
        subscribe: (listener) => {
          const stopCaptures = onCapture(listener);
          const stopEvents = onEvent((message) => listener(message));
          return () => {
            stopCaptures();
            stopEvents();
          };
        },
        findNow: async () => {
          const newest = (await select({ ...filter, limit: 1 })).ids[0];
          if (newest === undefined) return undefined;
          const [json] = await messagesJson([newest]);
          return json === undefined ? undefined : (JSON.parse(json) as CapturedMessage);
        },
        count: () => connection.run((redis) => redis.llen(keysList)),
      });
    },

    async stats() {
      const [count, dropped, bytes] = await connection.run((redis) => Promise.all([redis.llen(keysList), redis.get(droppedCounter), redis.get(bytesCounter)]));
      return { count, capacity, bytes: Number(bytes ?? 0), maxBytes, dropped: Number(dropped ?? 0) };
    },

    onCapture,

    onEvent,

    onClear: (listener) => channel.on("clear", () => listener()),

    onDropped: (listener) => channel.on("dropped", (event) => listener(event.ids)),
  };
}
