// The outbox in Redis: a list of small match keys, newest first, beside a hash of the messages'
// JSON by id. Adding, trimming to capacity, counting drops and telling the other replicas
// happen in one script, so no replica ever sees a half-added message.

import {
  cutToBytes,
  matchKeysOf,
  predicateBeyondTo,
  waitForCapture,
  type MatchKeys,
  type MessageFilter,
  type Outbox,
  type OutboxLimits,
  type SerializedMessageList,
} from "../../domain/outbox.js";
import type { CapturedMessage } from "../../wire.js";
import type { StoreChannel } from "./channel.js";
import type { RedisConnection } from "./connection.js";

// KEYS: key list, messages hash, drop counter, set of recipients, bytes counter. ARGV: keys JSON,
// id, message JSON, capacity, channel, event, prefix of the per-recipient lists, lowercased to,
// the message's bytes, max_bytes. The oldest go past either bound; the newest always stays.
const ADD_SCRIPT = `
redis.call('LPUSH', KEYS[1], ARGV[1])
redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
redis.call('LPUSH', ARGV[7] .. ARGV[8], ARGV[2])
redis.call('SADD', KEYS[4], ARGV[8])
local bytes = redis.call('INCRBY', KEYS[5], tonumber(ARGV[9]))
local count = redis.call('LLEN', KEYS[1])
local capacity = tonumber(ARGV[4])
local maxBytes = tonumber(ARGV[10])
local dropped = 0
while count > 1 and (count > capacity or bytes > maxBytes) do
  local keys = cjson.decode(redis.call('RPOP', KEYS[1]))
  redis.call('HDEL', KEYS[2], keys.id)
  local sameTo = ARGV[7] .. keys.to
  redis.call('RPOP', sameTo)
  if redis.call('LLEN', sameTo) == 0 then redis.call('SREM', KEYS[4], keys.to) end
  bytes = redis.call('DECRBY', KEYS[5], keys.bytes or 0)
  count = count - 1
  dropped = dropped + 1
end
if dropped > 0 then redis.call('INCRBY', KEYS[3], dropped) end
redis.call('PUBLISH', ARGV[5], ARGV[6])
return count`;

// KEYS as for ADD_SCRIPT. ARGV: prefix of the per-recipient lists, channel, event.
const CLEAR_SCRIPT = `
for _, to in ipairs(redis.call('SMEMBERS', KEYS[4])) do redis.call('DEL', ARGV[1] .. to) end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5])
redis.call('PUBLISH', ARGV[2], ARGV[3])
return 0`;

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
  const scriptKeys = [keysList, messagesHash, droppedCounter, recipientsSet, bytesCounter] as const;
  const { capacity, maxBytes = Number.MAX_SAFE_INTEGER, maxPageBytes = Number.MAX_SAFE_INTEGER } = options;

  const allKeys = (): Promise<StoredKeys[]> =>
    connection.run(async (redis) => (await redis.lrange(keysList, 0, -1)).map((text) => JSON.parse(text) as StoredKeys));

  /** The first `limit` items of a list, and its length. */
  const page = (list: string, limit: number): Promise<[string[], number]> =>
    connection.run((redis) =>
      Promise.all([limit < 1 ? Promise.resolve([]) : redis.lrange(list, 0, Number.isFinite(limit) ? limit - 1 : -1), redis.llen(list)]),
    );

  async function select(filter: MessageFilter): Promise<{ ids: string[]; total: number }> {
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
    const found = await connection.run((redis) => redis.hmget(messagesHash, ...ids));
    // A message trimmed by another replica between the two reads is simply left out.
    return found.filter((json): json is string => json !== null);
  }

  async function listSerialized(filter: MessageFilter = {}): Promise<SerializedMessageList> {
    const { ids, total } = await select(filter);
    const { kept, truncated } = cutToBytes(await messagesJson(ids), maxPageBytes);
    return { messages: kept, total, truncated };
  }

  const onCapture = (listener: (message: CapturedMessage) => void): (() => void) => channel.on("capture", (event) => listener(event.message));

  return {
    async add(message) {
      const json = JSON.stringify(message);
      const keys: StoredKeys = { id: message.id, ...matchKeysOf(message), bytes: Buffer.byteLength(json) };
      await connection.run((redis) =>
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
        ),
      );
    },

    listSerialized,

    async list(filter = {}) {
      const { messages, total } = await listSerialized(filter);
      return { messages: messages.map((json) => JSON.parse(json) as CapturedMessage), total };
    },

    async get(id) {
      const json = await connection.run(async (redis) => {
        const wanted = id === "latest" ? (JSON.parse((await redis.lindex(keysList, 0)) ?? "null") as StoredKeys | null)?.id : id;
        return wanted === undefined ? null : redis.hget(messagesHash, wanted);
      });
      return json === null ? undefined : (JSON.parse(json) as CapturedMessage);
    },

    async clear() {
      await connection.run((redis) =>
        redis.eval(CLEAR_SCRIPT, scriptKeys.length, ...scriptKeys, sameToPrefix, channel.name, JSON.stringify({ type: "clear" })),
      );
    },

    waitFor(filter = {}, waitOptions = {}) {
      return waitForCapture({
        filter,
        options: waitOptions,
        subscribe: onCapture,
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

    onClear: (listener) => channel.on("clear", () => listener()),
  };
}
