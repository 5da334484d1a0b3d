// The outbox in Redis: a list of small match keys, newest first, beside a hash of the messages'
// JSON by id, and each message's status and lifecycle events in hashes of their own. Adding,
// trimming to capacity, counting drops and telling the other replicas happen in one script, so
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
import { luaScript, type RedisConnection } from "./connection.js";

// KEYS as for ADD_SCRIPT (below). Drops the oldest while past capacity or max_bytes, the
// newest always kept, and returns their ids. In the same script as the add (or the event) that
// went past a bound, so that the count, the bytes and the list agree for every replica: trimmed
// by the caller after a read, two replicas adding at once both saw one message too many and
// dropped two, or neither dropped any.
const DROP_PAST_BOUNDS = `
local function dropPastBounds(capacity, maxBytes, sameToPrefix)
  local bytes = tonumber(redis.call('GET', KEYS[5]) or '0')
  local count = redis.call('LLEN', KEYS[1])
  local dropped = {}
  while count > 1 and (count > capacity or bytes > maxBytes) do
    local keys = cjson.decode(redis.call('RPOP', KEYS[1]))
    redis.call('HDEL', KEYS[2], keys.id)
    redis.call('HDEL', KEYS[6], keys.id)
    local events = redis.call('HGET', KEYS[7], keys.id)
    if events then
      bytes = redis.call('DECRBY', KEYS[5], string.len(events))
      redis.call('HDEL', KEYS[7], keys.id)
    end
    local sameTo = sameToPrefix .. keys.to
    redis.call('RPOP', sameTo)
    if redis.call('LLEN', sameTo) == 0 then redis.call('SREM', KEYS[4], keys.to) end
    bytes = redis.call('DECRBY', KEYS[5], keys.bytes or 0)
    count = count - 1
    dropped[#dropped + 1] = keys.id
  end
  if #dropped > 0 then redis.call('INCRBY', KEYS[3], #dropped) end
  return dropped
end
`;

// KEYS: key list, messages hash, drop counter, set of recipients, bytes counter, status hash,
// events hash, capture sequence. ARGV: keys JSON, id, message JSON (without status and events),
// capacity, channel, event, prefix of the per-recipient lists, lowercased to, the message's bytes,
// max_bytes. The message, its indexes, the bounds and the notice to the other replicas in one
// step: no replica ever reads a half-added message, and every one hears of each capture. The
// sequence starts at Redis's clock in µs, so that after Redis restarts empty it still outnumbers
// what a replica's word index has seen (replica-word-index.ts). Returns the dropped ids.
// Measured (one at a time, 2,000 each): ~22 µs of Redis CPU per add, ~24 µs when it drops the
// oldest, in one round trip; it was 79 and 132 µs with q's word index filed here.
const ADD_SCRIPT = luaScript(`${DROP_PAST_BOUNDS}
redis.call('LPUSH', KEYS[1], ARGV[1])
redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
redis.call('HSET', KEYS[6], ARGV[2], 'queued')
redis.call('LPUSH', ARGV[7] .. ARGV[8], ARGV[2])
redis.call('SADD', KEYS[4], ARGV[8])
redis.call('INCRBY', KEYS[5], tonumber(ARGV[9]))
if redis.call('INCR', KEYS[8]) == 1 then
  local time = redis.call('TIME')
  redis.call('SET', KEYS[8], string.format('%.0f', tonumber(time[1]) * 1000000 + tonumber(time[2])))
end
local dropped = dropPastBounds(tonumber(ARGV[4]), tonumber(ARGV[10]), ARGV[7])
redis.call('PUBLISH', ARGV[5], ARGV[6])
return dropped`);

// KEYS as for ADD_SCRIPT. ARGV: id, status, event JSON, channel, status as JSON, capacity,
// max_bytes, prefix of the per-recipient lists, most events ("" for no bound). Appends the event
// to the message's comma-joined events, told to every replica in the same step, then drops the
// oldest past max_bytes (an event grows its message). Returns the message as it is now and the
// dropped ids (nil when the message is gone or already has the most events). Counted here, not
// by the caller beforehand: by-hand events racing through two replicas both read 99 and made it 101.
// ~16 µs of Redis CPU per event, one round trip; the lifecycle records two per send.
const EVENT_SCRIPT = luaScript(`${DROP_PAST_BOUNDS}
local rest = redis.call('HGET', KEYS[2], ARGV[1])
if not rest then return false end
local events = redis.call('HGET', KEYS[7], ARGV[1])
if ARGV[9] ~= '' and events and events ~= '' and #cjson.decode('[' .. events .. ']') >= tonumber(ARGV[9]) then return false end
local added = string.len(ARGV[3])
if events and events ~= '' then
  events = events .. ',' .. ARGV[3]
  added = added + 1
else
  events = ARGV[3]
end
redis.call('HSET', KEYS[7], ARGV[1], events)
redis.call('HSET', KEYS[6], ARGV[1], ARGV[2])
redis.call('INCRBY', KEYS[5], added)
local message = '{"status":' .. ARGV[5] .. ',"events":[' .. events .. '],' .. string.sub(rest, 2)
redis.call('PUBLISH', ARGV[4], '{"type":"event","event":' .. ARGV[3] .. ',"message":' .. message .. '}')
return {message, dropPastBounds(tonumber(ARGV[6]), tonumber(ARGV[7]), ARGV[8])}`);

// KEYS as for ADD_SCRIPT. ARGV: the opening of the message's keys JSON, `{"id":"…",` (ids are
// written first; empty for the newest), prefix of the per-recipient lists. Finds the keys, then
// takes out everything indexed for it and gives its bytes back, in one step for the same reason
// as the drops. Returns the id deleted, or nil. A scan of the key list: deleting one message is
// a rare admin call, and an index by id would cost every capture a write.
const DELETE_SCRIPT = luaScript(`
local found
if ARGV[1] == '' then
  found = redis.call('LINDEX', KEYS[1], 0)
else
  local opening = ARGV[1]
  for _, item in ipairs(redis.call('LRANGE', KEYS[1], 0, -1)) do
    if string.sub(item, 1, string.len(opening)) == opening then
      found = item
      break
    end
  end
end
if not found then return false end
local keys = cjson.decode(found)
redis.call('LREM', KEYS[1], 1, found)
redis.call('HDEL', KEYS[2], keys.id)
redis.call('HDEL', KEYS[6], keys.id)
local events = redis.call('HGET', KEYS[7], keys.id)
if events then
  redis.call('DECRBY', KEYS[5], string.len(events))
  redis.call('HDEL', KEYS[7], keys.id)
end
redis.call('DECRBY', KEYS[5], keys.bytes or 0)
local sameTo = ARGV[2] .. keys.to
redis.call('LREM', sameTo, 1, keys.id)
if redis.call('LLEN', sameTo) == 0 then redis.call('SREM', KEYS[4], keys.to) end
return keys.id`);

// KEYS as for ADD_SCRIPT. ARGV: prefix of the per-recipient lists, channel, event. The capture
// sequence stays: it counts captures for the replicas' word indexes, which a clear does not undo.
const CLEAR_SCRIPT = luaScript(`
for _, to in ipairs(redis.call('SMEMBERS', KEYS[4])) do redis.call('DEL', ARGV[1] .. to) end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7])
redis.call('PUBLISH', ARGV[2], ARGV[3])
return 0`);

// KEYS: capture sequence, key list. ARGV: the sequence a replica's word index has seen ("" for
// none). Returns the sequence, the count kept and the keys of the kept messages captured since
// (all of them for ""), newest first: read in one step, so that no capture falls between the
// sequence and the list.
const CAPTURED_SINCE_SCRIPT = luaScript(`
local captured = tonumber(redis.call('GET', KEYS[1]) or '0')
local kept = redis.call('LLEN', KEYS[2])
local count = kept
if ARGV[1] ~= '' then count = math.min(kept, captured - tonumber(ARGV[1])) end
local keys = {}
if count > 0 then keys = redis.call('LRANGE', KEYS[2], 0, count - 1) end
return {string.format('%.0f', captured), kept, keys}`);

/**
 * A message as it is read: its stored text (without status and events, which change) with its
 * status and its comma-joined events put in front. Joined as text: parsing each message of a
 * page to add two fields would cost what writing stored text as it is saves.
 */
function composedMessage(rest: string, status: string, events: string): string {
  return `{"status":${JSON.stringify(status)},"events":[${events}],${rest.slice(1)}`;
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

export function createRedisOutbox(connection: RedisConnection, channel: StoreChannel, options: OutboxLimits): Outbox {
  const keysList = connection.key("outbox:keys");
  const messagesHash = connection.key("outbox:messages");
  const droppedCounter = connection.key("outbox:dropped");
  const recipientsSet = connection.key("outbox:recipients");
  const bytesCounter = connection.key("outbox:bytes");
  // As in memory, a list of ids per lowercased `to`, newest first: the usual list (one
  // recipient's newest messages) reads a page and a length instead of every message's keys.
  const sameToPrefix = connection.key("outbox:to:");
  const statusHash = connection.key("outbox:status");
  const eventsHash = connection.key("outbox:events");
  const captureSequence = connection.key("outbox:captured");
  const scriptKeys = [keysList, messagesHash, droppedCounter, recipientsSet, bytesCounter, statusHash, eventsHash, captureSequence];
  const { capacity, maxBytes = Number.MAX_SAFE_INTEGER, maxPageBytes = Number.MAX_SAFE_INTEGER } = options;

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
        // The message as every read of this store composes it: its text is serialized once per send.
        `{"type":"capture","message":${composedMessage(json, message.status, message.events.map((event) => JSON.stringify(event)).join(","))}}`,
        sameToPrefix,
        keys.to,
        keys.bytes,
        maxBytes,
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
        sameToPrefix,
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
      const deleted = await connection.script(DELETE_SCRIPT, scriptKeys, [id === "latest" ? "" : keysOpening(id), sameToPrefix]);
      return typeof deleted === "string" ? deleted : undefined;
    },

    async clear() {
      await connection.script(CLEAR_SCRIPT, scriptKeys, [sameToPrefix, channel.name, JSON.stringify({ type: "clear" })]);
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
  };
}
