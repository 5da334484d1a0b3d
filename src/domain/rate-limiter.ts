// A token bucket per API key: `burst` tokens, refilled at `requests` per `per_seconds`.

import { createHash } from "node:crypto";
import type { RateLimitOptions } from "../config.js";

export interface RateLimitDecision {
  allowed: boolean;
  /** The bucket size (RateLimit-Limit). */
  limit: number;
  /** Whole tokens left (RateLimit-Remaining). */
  remaining: number;
  /** Whole seconds until a token is back (RateLimit-Reset). */
  resetSeconds: number;
  /** Whole seconds until a request would pass (Retry-After); 0 when allowed. */
  retryAfterSeconds: number;
}

/** Asynchronous, so a limiter shared by several replicas can stand in for this one. */
export interface RateLimiter {
  /** Takes a token for `apiKey` under `limit`; a changed limit starts every bucket afresh. */
  take(apiKey: string, limit: RateLimitOptions): Promise<RateLimitDecision>;
  reset(): Promise<void>;
}

interface Bucket {
  tokens: number;
  updatedAtMs: number;
}

export function createMemoryRateLimiter(options: { nowMs?: () => number } = {}): RateLimiter {
  const nowMs = options.nowMs ?? (() => performance.now());
  // Keyed by a digest: the limiter must not keep API keys whole either.
  let buckets = new Map<string, Bucket>();
  let appliedLimit = "";

  return {
    take(apiKey, limit) {
      const size = limit.burst ?? limit.requests;
      const tokensPerSecond = limit.requests / limit.perSeconds;
      const limitId = `${limit.requests}/${limit.perSeconds}/${size}`;
      if (limitId !== appliedLimit) {
        buckets = new Map();
        appliedLimit = limitId;
      }
      const key = createHash("sha256").update(apiKey).digest("base64");
      const now = nowMs();
      const bucket = buckets.get(key) ?? { tokens: size, updatedAtMs: now };
      bucket.tokens = Math.min(size, bucket.tokens + ((now - bucket.updatedAtMs) / 1000) * tokensPerSecond);
      bucket.updatedAtMs = now;
      buckets.set(key, bucket);

      const allowed = bucket.tokens >= 1;
      if (allowed) bucket.tokens -= 1;
      // A take always leaves the bucket short of full, so a token is always on its way.
      const secondsUntilWholeToken = (1 - (bucket.tokens % 1)) / tokensPerSecond;
      return Promise.resolve({
        allowed,
        limit: size,
        remaining: Math.floor(bucket.tokens),
        resetSeconds: Math.ceil(secondsUntilWholeToken),
        retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((1 - bucket.tokens) / tokensPerSecond)),
      });
    },
    reset() {
      buckets = new Map();
      return Promise.resolve();
    },
  };
}
