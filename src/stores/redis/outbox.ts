// The outbox in Redis: a list of small match keys, newest first, beside a hash of the messages'
// JSON by id, and each message's status and lifecycle events in hashes of their own. Adding,
// trimming to capacity, counting drops and telling the other replicas happen in one script, so
// no replica ever sees a half-added message; so do recording an event and telling them, and
// deleting one message.

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
import { wordQueryOf, wordsOf } from "../../domain/word-index.js";
import type { CapturedMessage, MessageEvent, MessageStatus } from "../../wire.js";
import type { StoreChannel } from "./channel.js";
import type { RedisConnection } from "./connection.js";

// The word index for q, as in memory: a set of message ids per word (under a prefix), a count
// of the messages holding each word (the vocabulary a search reads instead of the messages),
// and each message's words, so that the message can be taken out again. KEYS[8] and KEYS[9]
// are the vocabulary hash and the words-per-message hash.
const FORGET_WORDS = `
local function forgetWords(id, wordSetPrefix)
  local listed = redis.call('HGET', KEYS[9], id)
  if not listed then return end
  for _, word in ipairs(cjson.decode(listed)) do
    redis.call('SREM', wordSetPrefix .. word, id)
    if redis.call('HINCRBY', KEYS[8], word, -1) <= 0 then redis.call('HDEL', KEYS[8], word) end
  end
  redis.call('HDEL', KEYS[9], id)
end
`;

// KEYS as for ADD_SCRIPT (below). Drops the oldest while past capacity or max_bytes, the
// newest always kept, and answers their ids.
const DROP_PAST_BOUNDS = `${FORGET_WORDS}
local function dropPastBounds(capacity, maxBytes, sameToPrefix, wordSetPrefix)
  local bytes = tonumber(redis.call('GET', KEYS[5]) or '0')
  local count = redis.call('LLEN', KEYS[1])
  local dropped = {}
  while count > 1 and (count > capacity or bytes > maxBytes) do
    local keys = cjson.decode(redis.call('RPOP', KEYS[1]))
    forgetWords(keys.id, wordSetPrefix)
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
// events hash, word vocabulary, words per message. ARGV: keys JSON, id, message JSON (without
// status and events), capacity, channel, event, prefix of the per-recipient lists, lowercased to,
// the message's bytes, max_bytes, prefix of the per-word sets, the message's words as a JSON array.
// The oldest go past either bound; the newest always stays. Answers the dropped ids.
const ADD_SCRIPT = `${DROP_PAST_BOUNDS}
redis.call('LPUSH', KEYS[1], ARGV[1])
redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
redis.call('HSET', KEYS[6], ARGV[2], 'queued')
redis.call('LPUSH', ARGV[7] .. ARGV[8], ARGV[2])
redis.call('SADD', KEYS[4], ARGV[8])
for _, word in ipairs(cjson.decode(ARGV[12])) do
  redis.call('SADD', ARGV[11] .. word, ARGV[2])
  redis.call('HINCRBY', KEYS[8], word, 1)
end
redis.call('HSET', KEYS[9], ARGV[2], ARGV[12])
redis.call('INCRBY', KEYS[5], tonumber(ARGV[9]))
local dropped = dropPastBounds(tonumber(ARGV[4]), tonumber(ARGV[10]), ARGV[7], ARGV[11])
redis.call('PUBLISH', ARGV[5], ARGV[6])
return dropped`;

// KEYS as for ADD_SCRIPT. ARGV: id, status, event JSON, channel, status as JSON, capacity,
// max_bytes, prefix of the per-recipient lists, prefix of the per-word sets, most events ("" for
// no bound). Appends the event to the message's comma-joined events, told to every replica in the
// same step, then drops the oldest past max_bytes (an event grows its message). Answers the
// message as it is now and the dropped ids (nil when the message is gone or already has the most
// events). Counted here, not by the caller beforehand: by-hand events racing through two replicas
// both read 99 and made it 101.
const EVENT_SCRIPT = `${DROP_PAST_BOUNDS}
local rest = redis.call('HGET', KEYS[2], ARGV[1])
if not rest then return false end
local events = redis.call('HGET', KEYS[7], ARGV[1])
if ARGV[10] ~= '' and events and events ~= '' and #cjson.decode('[' .. events .. ']') >= tonumber(ARGV[10]) then return false end
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
return {message, dropPastBounds(tonumber(ARGV[6]), tonumber(ARGV[7]), ARGV[8], ARGV[9])}`;

// KEYS as for ADD_SCRIPT. ARGV: the opening of the message's keys JSON, `{"id":"…",` (ids are
// written first; empty for the newest), prefix of the per-recipient lists, prefix of the
// per-word sets. Finds the keys, then
// takes out everything indexed for it and gives its bytes back. Answers the id deleted, or nil.
// A scan of the key list: deleting one message is a rare admin call, and an
// index by id would cost every capture a write.
const DELETE_SCRIPT = `${FORGET_WORDS}
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
forgetWords(keys.id, ARGV[3])
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
return keys.id`;

// KEYS as for ADD_SCRIPT. ARGV: prefix of the per-recipient lists, channel, event, prefix of the per-word sets.
const CLEAR_SCRIPT = `
for _, to in ipairs(redis.call('SMEMBERS', KEYS[4])) do redis.call('DEL', ARGV[1] .. to) end
for _, word in ipairs(redis.call('HKEYS', KEYS[8])) do redis.call('DEL', ARGV[4] .. word) end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7], KEYS[8], KEYS[9])
redis.call('PUBLISH', ARGV[2], ARGV[3])
return 0`;

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
  // q's word index (see FORGET_WORDS).
  const vocabularyHash = connection.key("outbox:q:vocabulary");
  const wordsHash = connection.key("outbox:q:words");
  const wordSetPrefix = connection.key("outbox:q:word:");
  const scriptKeys = [keysList, messagesHash, droppedCounter, recipientsSet, bytesCounter, statusHash, eventsHash, vocabularyHash, wordsHash] as const;
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

  /**
   * The ids filed under the words that may hold `q`, read from the word index (its vocabulary,
   * then those words' sets); undefined when `q` has no run of two letters or digits to look for.
   */
  async function idsHolding(q: string): Promise<Set<string> | undefined> {
    const wordQuery = wordQueryOf(q.toLowerCase());
    if (wordQuery === undefined) return undefined;
    // A whole word is looked up at once; a part of one is looked for in the vocabulary.
    const words = "word" in wordQuery ? [wordQuery.word] : (await connection.run((redis) => redis.hkeys(vocabularyHash))).filter(wordQuery.holds);
    const ids = new Set<string>();
    for (let start = 0; start < words.length; start += SEARCH_CHUNK) {
      const chunk = words.slice(start, start + SEARCH_CHUNK);
      const sets = await connection.run((redis) => Promise.all(chunk.map((word) => redis.smembers(wordSetPrefix + word))));
      for (const members of sets) for (const id of members) ids.add(id);
    }
    return ids;
  }

  /**
   * `select` for a text search. The word index names the messages that may hold `q`, and only
   * those of them the other filters leave are read, a chunk at a time, and searched in full;
   * a `q` without two letters or digits in a row reads every message the other filters leave.
   */
  async function selectByText(filter: MessageFilter, matches: (searchText: string) => boolean): Promise<{ ids: string[]; total: number }> {
    const limit = filter.limit ?? Number.POSITIVE_INFINITY;
    const [{ ids: leftByOthers }, indexed] = await Promise.all([select({ ...filter, q: undefined, limit: undefined }), idsHolding(filter.q ?? "")]);
    const candidates = indexed === undefined ? leftByOthers : leftByOthers.filter((id) => indexed.has(id));
    const ids: string[] = [];
    let total = 0;
    for (let start = 0; start < candidates.length; start += SEARCH_CHUNK) {
      const chunk = candidates.slice(start, start + SEARCH_CHUNK);
      const texts = await connection.run((redis) => redis.hmget(messagesHash, ...chunk));
      texts.forEach((text, index) => {
        // A message trimmed between the two reads is simply left out.
        if (text === null || !matches(searchTextOf(JSON.parse(text) as CapturedMessage))) return;
        total += 1;
        if (ids.length < limit) ids.push(chunk[index] as string);
      });
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
      const dropped = await connection.run((redis) =>
        redis.eval(
          ADD_SCRIPT,
          scriptKeys.length,
          ...scriptKeys,
          JSON.stringify(keys),
          message.id,
          json,
          capacity,
          channel.name,
          JSON.stringify({ type: "capture", message }),
          sameToPrefix,
          keys.to,
          keys.bytes,
          maxBytes,
          wordSetPrefix,
          JSON.stringify(wordsOf(searchTextOf(message))),
        ),
      );
      return { dropped: dropped as string[] };
    },

    async recordEvent(id, event, status, maxEvents) {
      const answer = await connection.run((redis) =>
        redis.eval(
          EVENT_SCRIPT,
          scriptKeys.length,
          ...scriptKeys,
          id,
          status,
          JSON.stringify(event),
          channel.name,
          JSON.stringify(status),
          capacity,
          maxBytes,
          sameToPrefix,
          wordSetPrefix,
          maxEvents === undefined ? "" : String(maxEvents),
        ),
      );
      if (!Array.isArray(answer)) return undefined;
      const [json, dropped] = answer as [string, string[]];
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
      const deleted = await connection.run((redis) =>
        redis.eval(DELETE_SCRIPT, scriptKeys.length, ...scriptKeys, id === "latest" ? "" : keysOpening(id), sameToPrefix, wordSetPrefix),
      );
      return typeof deleted === "string" ? deleted : undefined;
    },

    async clear() {
      await connection.run((redis) =>
        redis.eval(CLEAR_SCRIPT, scriptKeys.length, ...scriptKeys, sameToPrefix, channel.name, JSON.stringify({ type: "clear" }), wordSetPrefix),
      );
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
