// What every rate limiter promises, whichever store keeps the buckets. A shared store refills
// on its own clock, which no test can move, so the tests that need a refill wait a little real
// time with a fast limit; the exact arithmetic on a moved clock is in test/unit/rate-limiter.test.ts.

import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import type { RateLimitOptions } from "../../src/domain/rate-limiter.js";
import type { RateLimitDecision, RateLimiter } from "../../src/domain/rate-limiter.js";

/** A new limiter with no buckets, keeping at most `maxBuckets` of them when told. */
export type MakeRateLimiter = (options?: { maxBuckets?: number }) => Promise<RateLimiter>;

export async function takeMany(limiter: RateLimiter, apiKey: string, limit: RateLimitOptions, count: number): Promise<RateLimitDecision[]> {
  const decisions = [];
  for (let take = 0; take < count; take += 1) decisions.push(await limiter.take(apiKey, limit));
  return decisions;
}

const allowedOf = (decisions: RateLimitDecision[]): boolean[] => decisions.map((decision) => decision.allowed);

/** @param makeRateLimiter a new limiter with no buckets on every call */
export function describeRateLimiterContract(name: string, makeRateLimiter: MakeRateLimiter): void {
  describe(name, () => {
    // One token every 12 s: no test lasts long enough to see one come back.
    const fivePerMinute: RateLimitOptions = { requests: 5, perSeconds: 60 };
    // One token every 100 ms: a refill a test can wait for.
    const tenPerSecond: RateLimitOptions = { requests: 10, perSeconds: 1 };

    it("admits `requests` at once when burst is not set, then refuses, saying when to retry", async () => {
      const limiter = await makeRateLimiter();

      const decisions = await takeMany(limiter, "key-a", fivePerMinute, 6);

      expect(allowedOf(decisions)).toEqual([true, true, true, true, true, false]);
      expect(decisions.map((decision) => decision.remaining)).toEqual([4, 3, 2, 1, 0, 0]);
      expect(decisions.map((decision) => decision.limit)).toEqual([5, 5, 5, 5, 5, 5]);
      expect(decisions.map((decision) => decision.retryAfterSeconds)).toEqual([0, 0, 0, 0, 0, 12]);
      expect(decisions.at(-1)?.resetSeconds).toBe(12);
    });

    it("says in whole seconds when the next token is back", async () => {
      const limiter = await makeRateLimiter();
      const [first] = await takeMany(limiter, "key-a", fivePerMinute, 1);
      expect(first).toMatchObject({ allowed: true, remaining: 4, resetSeconds: 12, retryAfterSeconds: 0 });
    });

    it("lets burst differ from requests: the bucket holds burst tokens", async () => {
      const limiter = await makeRateLimiter();
      const limit = { requests: 1, perSeconds: 60, burst: 3 };

      const decisions = await takeMany(limiter, "key-a", limit, 4);

      expect(allowedOf(decisions)).toEqual([true, true, true, false]);
      expect(decisions.at(-1)).toMatchObject({ limit: 3, remaining: 0, retryAfterSeconds: 60 });
    });

    it("refills at requests per per_seconds", async () => {
      const limiter = await makeRateLimiter();
      const decisions = await takeMany(limiter, "key-a", tenPerSecond, 10);
      expect(decisions.every((decision) => decision.allowed)).toBe(true);
      expect(await limiter.take("key-a", tenPerSecond)).toMatchObject({ allowed: false, retryAfterSeconds: 1 });

      await sleep(150);

      expect((await limiter.take("key-a", tenPerSecond)).allowed).toBe(true);
    });

    it("never refills above the bucket size", async () => {
      const limiter = await makeRateLimiter();
      const twoAtMostRefilledFast = { requests: 20, perSeconds: 1, burst: 2 };
      expect(await limiter.take("key-a", twoAtMostRefilledFast)).toMatchObject({ allowed: true, remaining: 1 });

      // Long enough for six tokens, were the bucket not capped at two.
      await sleep(300);

      expect(await limiter.take("key-a", twoAtMostRefilledFast)).toMatchObject({ allowed: true, remaining: 1, limit: 2 });
    });

    it("keeps one bucket per API key", async () => {
      const limiter = await makeRateLimiter();
      const limit = { requests: 1, perSeconds: 60 };
      expect((await limiter.take("key-a", limit)).allowed).toBe(true);
      expect((await limiter.take("key-a", limit)).allowed).toBe(false);
      expect((await limiter.take("key-b", limit)).allowed).toBe(true);
    });

    it("starts every bucket afresh when the limit changes, even a bucket not used under the other limit", async () => {
      const limiter = await makeRateLimiter();
      const strict = { requests: 1, perSeconds: 60 };
      const looser = { requests: 2, perSeconds: 60 };
      await takeMany(limiter, "key-a", strict, 2);
      await takeMany(limiter, "key-b", strict, 2);

      expect(await limiter.take("key-a", looser)).toMatchObject({ allowed: true, limit: 2, remaining: 1 });
      expect((await limiter.take("key-a", strict)).allowed).toBe(true);
      expect((await limiter.take("key-b", strict)).allowed).toBe(true);
    });

    it("keeps at most maxBuckets buckets: past it, the one used longest ago is forgotten and its key starts afresh", async () => {
      const limiter = await makeRateLimiter({ maxBuckets: 2 });
      const onePerMinute = { requests: 1, perSeconds: 60 };
      await takeMany(limiter, "key-a", onePerMinute, 1);
      await takeMany(limiter, "key-b", onePerMinute, 1);
      // Refused, but used: key-b is now the bucket used longest ago.
      expect((await limiter.take("key-a", onePerMinute)).allowed).toBe(false);

      await takeMany(limiter, "key-c", onePerMinute, 1);

      expect((await limiter.take("key-a", onePerMinute)).allowed).toBe(false);
      expect((await limiter.take("key-b", onePerMinute)).allowed).toBe(true);
    });

    it("starts every bucket afresh on reset", async () => {
      const limiter = await makeRateLimiter();
      const strict = { requests: 1, perSeconds: 60 };
      await takeMany(limiter, "key-a", strict, 2);
      await takeMany(limiter, "key-b", strict, 2);

      await limiter.reset();

      expect((await limiter.take("key-a", strict)).allowed).toBe(true);
      expect((await limiter.take("key-b", strict)).allowed).toBe(true);
    });
  });
}
