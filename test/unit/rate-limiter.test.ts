// The in-memory token bucket on a clock the test moves by hand, for the exact arithmetic of a
// refill. What every rate limiter promises, whichever store keeps the buckets, is in
// test/stores/rate-limiter-contract.ts.

import { describe, expect, it } from "vitest";
import type { RateLimitOptions } from "../../src/domain/rate-limiter.js";
import { createMemoryRateLimiter } from "../../src/stores/memory/index.js";
import { takeMany } from "../stores/rate-limiter-contract.js";

/** A limiter on a clock the test moves by hand. */
function aLimiterWithClock() {
  let nowMs = 0;
  const limiter = createMemoryRateLimiter({ nowMs: () => nowMs });
  return {
    limiter,
    advanceSeconds: (seconds: number) => {
      nowMs += seconds * 1000;
    },
  };
}

describe("a token bucket per API key, on a clock moved by hand", () => {
  const fivePerTenSeconds: RateLimitOptions = { requests: 5, perSeconds: 10 };

  it("says in whole seconds when the next token is back: 5 per 10 s refills one every 2 s", async () => {
    const { limiter } = aLimiterWithClock();
    const [first] = await takeMany(limiter, "key-a", fivePerTenSeconds, 1);
    expect(first?.resetSeconds).toBe(2);
    const refused = (await takeMany(limiter, "key-a", fivePerTenSeconds, 5)).at(-1);
    expect(refused).toMatchObject({ allowed: false, retryAfterSeconds: 2, resetSeconds: 2 });
  });

  it("refills at requests per per_seconds, never above the bucket size", async () => {
    const { limiter, advanceSeconds } = aLimiterWithClock();
    await takeMany(limiter, "key-a", fivePerTenSeconds, 5);
    advanceSeconds(1);
    expect(await limiter.take("key-a", fivePerTenSeconds)).toMatchObject({ allowed: false, retryAfterSeconds: 1 });
    advanceSeconds(1);
    expect(await limiter.take("key-a", fivePerTenSeconds)).toMatchObject({ allowed: true, remaining: 0 });
    advanceSeconds(1000);
    const afterLongIdle = await takeMany(limiter, "key-a", fivePerTenSeconds, 6);
    expect(afterLongIdle.filter((decision) => decision.allowed)).toHaveLength(5);
  });

  it("lets burst differ from requests: a bucket of 3 refilled at 1 per second", async () => {
    const { limiter, advanceSeconds } = aLimiterWithClock();
    const limit = { requests: 1, perSeconds: 1, burst: 3 };
    expect((await takeMany(limiter, "key-a", limit, 4)).map((decision) => decision.allowed)).toEqual([true, true, true, false]);
    advanceSeconds(0.5);
    expect(await limiter.take("key-a", limit)).toMatchObject({ allowed: false, limit: 3, retryAfterSeconds: 1 });
    advanceSeconds(0.5);
    expect((await limiter.take("key-a", limit)).allowed).toBe(true);
  });

  it("rounds a fractional wait up to whole seconds", async () => {
    const { limiter, advanceSeconds } = aLimiterWithClock();
    const limit = { requests: 2, perSeconds: 5 };
    await takeMany(limiter, "key-a", limit, 2);
    advanceSeconds(0.5);
    // 0.4 tokens per second: 0.2 tokens are back, 0.8 to go = 2 s.
    expect(await limiter.take("key-a", limit)).toMatchObject({ allowed: false, retryAfterSeconds: 2 });
  });
});
