// The request journal in Redis: one list, newest first, cut to capacity and max_bytes in the same
// script that adds an entry and tells the other replicas.

import { cutToBytes } from "../../domain/outbox.js";
import type { Journal, JournalLimits } from "../../domain/journal.js";
import type { JournalEntry } from "../../wire.js";
import type { StoreChannel } from "./channel.js";
import { luaScript, type RedisConnection } from "./connection.js";

// KEYS: entries list, bytes counter. ARGV: entry JSON, capacity, max_bytes, channel, event.
// The oldest go past either bound; the newest always stays. In one script for the outbox's
// reason (trimmed after a read, two replicas recording at once both trimmed, or neither): one
// command per send, ~5 µs of Redis CPU, and the send does not wait for it.
const RECORD_SCRIPT = luaScript(`
redis.call('LPUSH', KEYS[1], ARGV[1])
local bytes = redis.call('INCRBY', KEYS[2], string.len(ARGV[1]))
local count = redis.call('LLEN', KEYS[1])
local capacity = tonumber(ARGV[2])
local maxBytes = tonumber(ARGV[3])
while count > 1 and (count > capacity or bytes > maxBytes) do
  bytes = redis.call('DECRBY', KEYS[2], string.len(redis.call('RPOP', KEYS[1])))
  count = count - 1
end
redis.call('PUBLISH', ARGV[4], ARGV[5])
return count`);

export function createRedisJournal(connection: RedisConnection, channel: StoreChannel, options: JournalLimits): Journal {
  const entriesList = connection.key("journal");
  const bytesCounter = connection.key("journal:bytes");
  const { capacity, maxBytes = Number.MAX_SAFE_INTEGER, maxPageBytes = Number.MAX_SAFE_INTEGER } = options;

  return {
    async record(entry) {
      const json = JSON.stringify(entry);
      // The channel's event is the entry's JSON in an envelope: the entry is serialized once.
      await connection.script(RECORD_SCRIPT, [entriesList, bytesCounter], [json, capacity, maxBytes, channel.name, `{"type":"record","entry":${json}}`]);
    },

    async list({ limit } = {}) {
      const page = (redis: RedisConnection["commands"]): Promise<string[]> => {
        if (limit === undefined) return redis.lrange(entriesList, 0, -1);
        return limit < 1 ? Promise.resolve([]) : redis.lrange(entriesList, 0, limit - 1);
      };
      const [texts, total] = await connection.run((redis) => Promise.all([page(redis), redis.llen(entriesList)]));
      const { kept, truncated } = cutToBytes(texts, maxPageBytes);
      return { requests: kept.map((text) => JSON.parse(text) as JournalEntry), total, truncated };
    },

    async clear() {
      await connection.run((redis) => redis.del(entriesList, bytesCounter));
    },

    onRecord: (listener) => channel.on("record", (event) => listener(event.entry)),
  };
}
