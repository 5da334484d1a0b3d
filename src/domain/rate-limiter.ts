// A token bucket per API key: `burst` tokens, refilled at `requests` per `per_seconds`.

import { sha256 } from "./digest.js";

/** A rate limit as configured: `requests` per `perSeconds`, in bursts of up to `burst`. */
export interface RateLimitOptions {
  requests: number;
  perSeconds: number;
  /** Bucket size; defaults to `requests`. */
  burst?: number;
}

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

/** The numbers of a limit that a bucket works with; `id` changes whenever the limit does. */
export function bucketRules(limit: RateLimitOptions): { size: number; tokensPerSecond: number; id: string } {
  const size = limit.burst ?? limit.requests;
  return { size, tokensPerSecond: limit.requests / limit.perSeconds, id: `${limit.requests}/${limit.perSeconds}/${size}` };
}

/**
 * Buckets kept at once (`max_rate_limit_buckets`). Every distinct bearer token got a bucket that
 * stayed until reset: 200,000 tokens kept 44 MB. A bucket that has refilled is forgotten (it is
 * the same as a new one), and past this bound the one used longest ago is, its key starting
 * afresh: only a client with more keys than this in use at once gets more than its share.
 */
export const DEFAULT_MAX_RATE_LIMIT_BUCKETS = 10_000;

/** Buckets a take looks at to forget those that have refilled: constant work per take, and ahead of the buckets it adds. */
export const BUCKETS_SWEPT_PER_TAKE = 100;

/** Buckets are keyed by a digest: no limiter may keep API keys whole. */
export function bucketKey(apiKey: string): string {
  return sha256(apiKey, "base64");
}

/** What a take means for the client, from whether it got a token and the tokens left after it. */
export function decisionAfterTake(allowed: boolean, tokensLeft: number, limit: RateLimitOptions): RateLimitDecision {
  const { size, tokensPerSecond } = bucketRules(limit);
  // A take always leaves the bucket short of full, so a token is always on its way.
  const secondsUntilWholeToken = (1 - (tokensLeft % 1)) / tokensPerSecond;
  return {
    allowed,
    limit: size,
    remaining: Math.floor(tokensLeft),
    resetSeconds: Math.ceil(secondsUntilWholeToken),
    retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((1 - tokensLeft) / tokensPerSecond)),
  };
}
