// The request journal in Redis: one list, newest first, cut to the bounds every sandbox's journal
// shares (capacity and max_bytes' share) in the same script that adds an entry and tells the other replicas.

import { cutToBytes } from "../../domain/outbox.js";
import type { Journal, JournalLimits } from "../../domain/journal.js";
import type { JournalEntry } from "../../wire.js";
import type { StoreChannel } from "./channel.js";
import { luaScript, type RedisConnection } from "./connection.js";
import { LUA_KEYS_OF } from "./key-prefix.js";
import { ownBound, type RedisSandboxBound } from "./shared-bounds.js";

/** A journal's keys after its sandbox's prefix: a script reaches another sandbox's by them. */
const ENTRIES = "journal";
const BYTES = "journal:bytes";

// KEYS: entries list, bytes counter, the bound's order (a list of sandbox names, newest first)
// and bytes. ARGV: entry JSON, capacity, max_bytes, channel, environment's prefix, sandbox. The
// oldest entry of all goes past either bound, in whichever sandbox's journal; the newest always
// stays. A list of names is enough to know whose entry is the oldest: a journal loses entries
// only oldest first, or all at once. In one script for the outbox's reason (trimmed after a
// read, two replicas recording at once both trimmed, or neither): one command per send, ~5 µs of
// Redis CPU, and the send does not wait for it. The channel's event is the entry in an envelope
// put around it here: the entry goes to Redis once.
const RECORD_SCRIPT = luaScript(`${LUA_KEYS_OF}
local size = string.len(ARGV[1])
redis.call('LPUSH', KEYS[1], ARGV[1])
redis.call('INCRBY', KEYS[2], size)
local count = redis.call('LPUSH', KEYS[3], ARGV[6])
local bytes = redis.call('INCRBY', KEYS[4], size)
local capacity = tonumber(ARGV[2])
local maxBytes = tonumber(ARGV[3])
while count > 1 and (count > capacity or bytes > maxBytes) do
  local prefix = keysOf(ARGV[5], redis.call('RPOP', KEYS[3]))
  local dropped = redis.call('RPOP', prefix .. '${ENTRIES}')
  if dropped then
    redis.call('DECRBY', prefix .. '${BYTES}', string.len(dropped))
    bytes = redis.call('DECRBY', KEYS[4], string.len(dropped))
  end
  count = count - 1
end
redis.call('PUBLISH', ARGV[4], '{"type":"record","entry":' .. ARGV[1] .. '}')
return count`);

// KEYS as for RECORD_SCRIPT. ARGV: sandbox. Empties the journal and gives its entries' places and bytes back to the bound.
const CLEAR_SCRIPT = luaScript(`
redis.call('LREM', KEYS[3], 0, ARGV[1])
redis.call('DECRBY', KEYS[4], tonumber(redis.call('GET', KEYS[2]) or '0'))
redis.call('DEL', KEYS[1], KEYS[2])
return 0`);

/** `bound`: the one every sandbox's journal shares, whose limits replace the options' capacity and max_bytes; one of its own when left out. */
export function createRedisJournal(connection: RedisConnection, channel: StoreChannel, options: JournalLimits, bound?: RedisSandboxBound): Journal {
  const entriesList = connection.key(ENTRIES);
  const bytesCounter = connection.key(BYTES);
  const { maxPageBytes = Number.MAX_SAFE_INTEGER } = options;
  const shared = bound ?? ownBound(connection, "journal", { capacity: options.capacity, maxBytes: options.maxBytes ?? Number.MAX_SAFE_INTEGER });
  const scriptKeys = [entriesList, bytesCounter, shared.order, shared.bytes];
  const { capacity, maxBytes } = shared.limits;

  return {
    async record(entry) {
      await connection.script(RECORD_SCRIPT, scriptKeys, [JSON.stringify(entry), capacity, maxBytes, channel.name, shared.environment, shared.sandbox]);
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
      await connection.script(CLEAR_SCRIPT, scriptKeys, [shared.sandbox]);
    },

    onRecord: (listener) => channel.on("record", (event) => listener(event.entry)),
  };
}
