// Idempotency keys in Redis: one claim per key across replicas (a script reads and sets at once),
// kept responses expiring on the mock's clock, an index by age that evicts the oldest past the cap.
// A claim still waiting for its response names the replica's lease: once that replica is gone,
// the key is free again.

import type { IdempotencyClaim, IdempotencyLimits, IdempotencyStore, KeptResponse } from "../../domain/idempotency.js";
import { luaScript, type RedisConnection } from "./connection.js";
import type { ReplicaLease } from "./replica-lease.js";

// KEYS: the entry, the index (a sorted set by age), its counter. ARGV: fingerprint, the mock's
// now in ms, ttl ms, max keys, the response as JSON ("" to claim), this replica's lease owner,
// prefix of the owners' lease keys. Claiming returns what holds a live key, or takes it; keeping
// writes the response over the claim.
// An entry's own expiry is checked against the mock's clock; the real PEXPIRE only collects it
// later (the mock's clock is never behind the real one, so it never comes first).
// A claim without its response holds the key only while its owner's lease lives: a replica killed
// mid-send left every retry getting a 409 idempotency_key_in_flight for the whole TTL, a day.
const PUT_SCRIPT = luaScript(`
local now = tonumber(ARGV[2])
local ttl = tonumber(ARGV[3])
if ARGV[5] == '' then
  local held = redis.call('HMGET', KEYS[1], 'fingerprint', 'answer', 'expires_at', 'owner')
  if held[1] and tonumber(held[3]) > now then
    if held[2] then return {'responded', held[1], held[2]} end
    if not held[4] or held[4] == ARGV[6] or redis.call('EXISTS', ARGV[7] .. held[4]) == 1 then return {'in_flight', held[1]} end
  end
end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'fingerprint', ARGV[1], 'expires_at', tostring(now + ttl))
if ARGV[5] ~= '' then redis.call('HSET', KEYS[1], 'answer', ARGV[5]) else redis.call('HSET', KEYS[1], 'owner', ARGV[6]) end
redis.call('PEXPIRE', KEYS[1], ttl)
redis.call('ZADD', KEYS[2], redis.call('INCR', KEYS[3]), KEYS[1])
local over = redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[4])
if over > 0 then
  for _, oldest in ipairs(redis.call('ZRANGE', KEYS[2], 0, over - 1)) do redis.call('DEL', oldest) end
  redis.call('ZREMRANGEBYRANK', KEYS[2], 0, over - 1)
end
return {'claimed'}`);

// KEYS: the entry, the index. ARGV: this replica's lease owner. A kept response stays: only a claim
// still waiting for its response goes, and only this replica's (another may have taken it over).
const RELEASE_SCRIPT = luaScript(`
local held = redis.call('HMGET', KEYS[1], 'answer', 'owner')
if not held[1] and (not held[2] or held[2] == ARGV[1]) then
  redis.call('DEL', KEYS[1])
  redis.call('ZREM', KEYS[2], KEYS[1])
end
return 1`);

/**
 * @param nowMs the mock's clock (shared offset), so that advancing it expires keys on every replica
 * @param lease this replica's: a claim it makes is in flight while it lives
 */
export function createRedisIdempotencyStore(
  connection: RedisConnection,
  limits: IdempotencyLimits,
  nowMs: () => number,
  lease: ReplicaLease,
): IdempotencyStore {
  const entryPrefix = connection.key("idempotency:");
  const index = connection.key("idempotency-index");
  const counter = connection.key("idempotency-counter");
  const entryPattern = `${entryPrefix.replace(/[*?[\]\\]/g, "\\$&")}*`;

  const put = (scope: string, fingerprint: string, responseJson: string): Promise<string[]> =>
    connection.script(
      PUT_SCRIPT,
      [entryPrefix + scope, index, counter],
      [fingerprint, nowMs(), limits.ttlMs, limits.maxKeys, responseJson, lease.owner, lease.ownerKeyPrefix],
    ) as Promise<string[]>;

  return {
    async claim(scope, fingerprint): Promise<IdempotencyClaim> {
      const [state, heldFingerprint = "", response = ""] = await put(scope, fingerprint, "");
      if (state === "in_flight") return { state, fingerprint: heldFingerprint };
      if (state === "responded") return { state, fingerprint: heldFingerprint, response: JSON.parse(response) as KeptResponse };
      return { state: "claimed" };
    },
    async keep(scope, fingerprint, response) {
      await put(scope, fingerprint, JSON.stringify(response));
    },
    async release(scope) {
      await connection.script(RELEASE_SCRIPT, [entryPrefix + scope, index], [lease.owner]);
    },
    async reset() {
      await connection.run(async (redis) => {
        const stream = redis.scanStream({ match: entryPattern, count: 500 });
        for await (const keys of stream as AsyncIterable<string[]>) {
          if (keys.length > 0) await redis.unlink(...keys);
        }
        await redis.unlink(index, counter);
      });
    },
  };
}
