// The rate limiter in memory: a token bucket per API key digest, refilled on each take, the
// buckets that have refilled forgotten and at most `maxBuckets` kept.

import {
  BUCKETS_SWEPT_PER_TAKE,
  bucketKey,
  bucketRules,
  decisionAfterTake,
  DEFAULT_MAX_RATE_LIMIT_BUCKETS,
  type RateLimiter,
} from "../../domain/rate-limiter.js";

interface Bucket {
  tokens: number;
  updatedAtMs: number;
}

/**
 * @param options.nowMs the mock's clock, so that advancing it refills the buckets (default: real time)
 * @param options.maxBuckets the most buckets kept (default DEFAULT_MAX_RATE_LIMIT_BUCKETS)
 */
export function createMemoryRateLimiter(options: { nowMs?: () => number; maxBuckets?: number } = {}): RateLimiter {
  const nowMs = options.nowMs ?? (() => performance.now());
  const maxBuckets = options.maxBuckets ?? DEFAULT_MAX_RATE_LIMIT_BUCKETS;
  // In the order of their last use, oldest first: a Map keeps insertion order, and a take moves its bucket last.
  let buckets = new Map<string, Bucket>();
  let appliedLimit = "";

  /**
   * Forgets buckets from the one used longest ago: any past `maxBuckets`, then those that have
   * refilled (a new bucket is the same), up to the first that has not.
   */
  const forgetFrom = (now: number, size: number, tokensPerSecond: number): void => {
    let looked = 0;
    for (const [key, bucket] of buckets) {
      const refilled = bucket.tokens + (Math.max(0, now - bucket.updatedAtMs) / 1000) * tokensPerSecond >= size;
      if (buckets.size <= maxBuckets && (looked >= BUCKETS_SWEPT_PER_TAKE || !refilled)) return;
      looked += 1;
      buckets.delete(key);
    }
  };

  return {
    take(apiKey, limit) {
      const { size, tokensPerSecond, id } = bucketRules(limit);
      if (id !== appliedLimit) {
        buckets = new Map();
        appliedLimit = id;
      }
      const key = bucketKey(apiKey);
      const now = nowMs();
      forgetFrom(now, size, tokensPerSecond);
      const bucket = buckets.get(key) ?? { tokens: size, updatedAtMs: now };
      // Never below what it held: the mock's clock goes back to real time on reset.
      bucket.tokens = Math.min(size, bucket.tokens + (Math.max(0, now - bucket.updatedAtMs) / 1000) * tokensPerSecond);
      bucket.updatedAtMs = now;
      buckets.delete(key);
      buckets.set(key, bucket);
      if (buckets.size > maxBuckets) forgetFrom(now, size, tokensPerSecond);

      const allowed = bucket.tokens >= 1;
      if (allowed) bucket.tokens -= 1;
      return Promise.resolve(decisionAfterTake(allowed, bucket.tokens, limit));
    },
    reset() {
      buckets = new Map();
      return Promise.resolve();
    },
  };
}
