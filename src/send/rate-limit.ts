// Step: the rate limiter, with RateLimit-* headers and the IETF RateLimit-Policy / RateLimit fields on every response, 429 past the limit.

import type { RateLimiter, RateLimitOptions } from "../domain/rate-limiter.js";
import { ApiError } from "../errors.js";

export interface RateDecision {
  /** For every response from here on, errors included. */
  headers: Record<string, string>;
  /** Set when the key is past its limit. */
  refusal: ApiError | undefined;
}

const UNLIMITED: RateDecision = { headers: {}, refusal: undefined };

export async function limitRate(apiKey: string, limit: RateLimitOptions | null, limiter: RateLimiter): Promise<RateDecision> {
  if (limit === null) return UNLIMITED;
  const decision = await limiter.take(apiKey, limit);
  const headers = {
    "ratelimit-limit": String(decision.limit),
    "ratelimit-remaining": String(decision.remaining),
    "ratelimit-reset": String(decision.resetSeconds),
    // The IETF structured fields (draft-ietf-httpapi-ratelimit-headers); the window is whole
    // seconds there, so a sub-second per_seconds is rounded up to 1.
    "ratelimit-policy": `"default";q=${decision.limit};w=${Math.max(1, Math.ceil(limit.perSeconds))}`,
    ratelimit: `"default";r=${decision.remaining};t=${decision.resetSeconds}`,
  };
  if (decision.allowed) return { headers, refusal: undefined };
  const refusal = new ApiError(
    "rate_limited",
    `Rate limit exceeded: ${limit.requests} requests per ${limit.perSeconds} s for this API key; retry after ${decision.retryAfterSeconds} s`,
    { headers: { "Retry-After": String(decision.retryAfterSeconds) } },
  );
  return { headers, refusal };
}
