// The rate limiter as a step of POST /send: RateLimit-* headers and the IETF RateLimit-Policy / RateLimit fields on every answer, 429 past the limit.

import type { NextFunction, Request, Response } from "express";
import type { RateLimiter } from "../domain/rate-limiter.js";
import type { SettingsStore } from "../domain/settings.js";
import { ApiError } from "../errors.js";
import { sendRecordOf } from "./request-record.js";

export function limitRate(deps: { limiter: RateLimiter; settings: SettingsStore }) {
  return async (_req: Request, res: Response, next: NextFunction): Promise<void> => {
    const limit = deps.settings.current().rateLimit;
    if (limit === null) {
      next();
      return;
    }
    const decision = await deps.limiter.take(sendRecordOf(res).apiKey ?? "", limit);
    res.set({
      "RateLimit-Limit": String(decision.limit),
      "RateLimit-Remaining": String(decision.remaining),
      "RateLimit-Reset": String(decision.resetSeconds),
      // The IETF structured fields (draft-ietf-httpapi-ratelimit-headers); the window is whole
      // seconds there, so a sub-second per_seconds is rounded up to 1.
      "RateLimit-Policy": `"default";q=${decision.limit};w=${Math.max(1, Math.ceil(limit.perSeconds))}`,
      RateLimit: `"default";r=${decision.remaining};t=${decision.resetSeconds}`,
    });
    if (!decision.allowed) {
      throw new ApiError(
        "rate_limited",
        `Rate limit exceeded: ${limit.requests} requests per ${limit.perSeconds} s for this API key; retry after ${decision.retryAfterSeconds} s`,
        { headers: { "Retry-After": String(decision.retryAfterSeconds) } },
      );
    }
    next();
  };
}
