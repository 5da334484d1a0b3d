// The rate limiter in Redis: one token bucket per API-key digest, refilled and taken in a
// script on Redis's own clock plus the mock's shared clock offset, so replicas with drifting
// clocks still share one limit, and advancing the mock's clock refills it. The buckets that
// have refilled are forgotten, and at most `maxBuckets` are kept.

import {
  BUCKETS_SWEPT_PER_TAKE,
  bucketKey,
  bucketRules,
  decisionAfterTake,
  DEFAULT_MAX_RATE_LIMIT_BUCKETS,
  type RateLimiter,
} from "../../domain/rate-limiter.js";
import { luaScript, type RedisConnection } from "./connection.js";

// KEYS: the bucket, the limit in force, the index of the buckets by last use (on the mock's
// clock). ARGV: size, tokens per millisecond, limit id, ttl ms, the mock's clock offset in ms,
// the most buckets kept, the ms a bucket takes to refill from empty, the most buckets forgotten
// for having refilled.
// Each change of the limit opens a new epoch, and a bucket filled in an earlier epoch starts
// afresh: a changed limit restarts every bucket, even one not used since the change.
// A bucket not used for the time it takes to refill from empty is full: the same as a new one,
// so it is forgotten; past the most kept, those used longest ago are. Every key has a time to
// live in real time, which the mock's clock only outruns: a bucket left alone goes by itself.
const TAKE_SCRIPT = luaScript(`
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + tonumber(time[2]) / 1000 + tonumber(ARGV[5])
local size = tonumber(ARGV[1])
local applied = redis.call('HMGET', KEYS[2], 'limit', 'epoch')
local epoch = tonumber(applied[2]) or 0
if applied[1] ~= ARGV[3] then
  epoch = epoch + 1
  redis.call('HSET', KEYS[2], 'limit', ARGV[3], 'epoch', epoch)
end
local state = redis.call('HMGET', KEYS[1], 'tokens', 'at', 'epoch')
local tokens = tonumber(state[1])
local at = tonumber(state[2])
if tokens == nil or tonumber(state[3]) ~= epoch then
  tokens = size
  at = now
end
tokens = math.min(size, tokens + math.max(0, now - at) * tonumber(ARGV[2]))
local allowed = 0
if tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now), 'epoch', epoch)
redis.call('PEXPIRE', KEYS[1], ARGV[4])
redis.call('ZADD', KEYS[3], now, KEYS[1])
redis.call('PEXPIRE', KEYS[3], ARGV[4])
local refilled = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now - tonumber(ARGV[7]), 'LIMIT', 0, tonumber(ARGV[8]))
for _, bucket in ipairs(refilled) do
  redis.call('DEL', bucket)
  redis.call('ZREM', KEYS[3], bucket)
end
local over = redis.call('ZCARD', KEYS[3]) - tonumber(ARGV[6])
if over > 0 then
  local oldest = redis.call('ZPOPMIN', KEYS[3], over)
  for index = 1, #oldest, 2 do
    redis.call('DEL', oldest[index])
  end
end
return {allowed, tostring(tokens)}`);

/**
 * @param clockOffsetMs how far the mock's clock is ahead of real time now
 * @param maxBuckets the most buckets kept (default DEFAULT_MAX_RATE_LIMIT_BUCKETS)
 */
export function createRedisRateLimiter(
  connection: RedisConnection,
  clockOffsetMs: () => number = () => 0,
  maxBuckets: number = DEFAULT_MAX_RATE_LIMIT_BUCKETS,
): RateLimiter {
  const bucketPrefix = connection.key("ratelimit:");
  // Under the buckets' prefix, so that a reset deletes it with them; no digest is named "index".
  const index = connection.key("ratelimit:index");
  // Outside the buckets' pattern, so that a reset keeps it.
  const appliedLimit = connection.key("ratelimit-limit");
  // A prefix is the user's text: its glob characters must match only themselves in SCAN.
  const bucketPattern = `${bucketPrefix.replace(/[*?[\]\\]/g, "\\$&")}*`;

  return {
    async take(apiKey, limit) {
      const { size, tokensPerSecond, id } = bucketRules(limit);
      // A bucket left alone refills completely within this time; after it, it may as well be gone.
      const refillMs = (size / tokensPerSecond) * 1000;
      const ttlMs = Math.ceil(refillMs) + 1000;
      const [allowed, tokensLeft] = (await connection.script(
        TAKE_SCRIPT,
        [bucketPrefix + bucketKey(apiKey), appliedLimit, index],
        [size, tokensPerSecond / 1000, id, ttlMs, clockOffsetMs(), maxBuckets, refillMs, BUCKETS_SWEPT_PER_TAKE],
      )) as [number, string];
      return decisionAfterTake(allowed === 1, Number(tokensLeft), limit);
    },

    async reset() {
      await connection.run(async (redis) => {
        const stream = redis.scanStream({ match: bucketPattern, count: 500 });
        for await (const keys of stream as AsyncIterable<string[]>) {
          if (keys.length > 0) await redis.unlink(...keys);
        }
      });
    },
  };
}
