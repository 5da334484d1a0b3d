// The rate limiter in memory: a token bucket per API key digest, refilled on each take.

import { bucketKey, bucketRules, decisionAfterTake, type RateLimiter } from "../../domain/rate-limiter.js";

interface Bucket {
  tokens: number;
  updatedAtMs: number;
}

/** @param options.nowMs the mock's clock, so that advancing it refills the buckets (default: real time) */
export function createMemoryRateLimiter(options: { nowMs?: () => number } = {}): RateLimiter {
  const nowMs = options.nowMs ?? (() => performance.now());
  let buckets = new Map<string, Bucket>();
  let appliedLimit = "";

  return {
    take(apiKey, limit) {
      const { size, tokensPerSecond, id } = bucketRules(limit);
      if (id !== appliedLimit) {
        buckets = new Map();
        appliedLimit = id;
      }
      const key = bucketKey(apiKey);
      const now = nowMs();
      const bucket = buckets.get(key) ?? { tokens: size, updatedAtMs: now };
      // Never below what it held: the mock's clock goes back to real time on reset.
      bucket.tokens = Math.min(size, bucket.tokens + (Math.max(0, now - bucket.updatedAtMs) / 1000) * tokensPerSecond);
      bucket.updatedAtMs = now;
      buckets.set(key, bucket);

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
