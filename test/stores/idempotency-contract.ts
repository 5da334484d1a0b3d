// What every idempotency store promises, whichever store keeps the keys: one claim per key, responses kept for the TTL, the oldest evicted.

import { describe, expect, it } from "vitest";
import type { IdempotencyLimits, IdempotencyStore, KeptResponse } from "../../src/domain/idempotency.js";

/** @param makeStore a new, empty store with these limits, on a clock the test sets with `nowMs` */
export type MakeIdempotencyStore = (limits: IdempotencyLimits, nowMs: () => number) => Promise<IdempotencyStore>;

const aResponse: KeptResponse = { status: 200, headers: { "content-type": "application/json; charset=utf-8" }, body: '{"success":true}', messageId: "msg_1" };

export function describeIdempotencyContract(name: string, makeStore: MakeIdempotencyStore): void {
  describe(name, () => {
    const limits = { ttlMs: 60_000, maxKeys: 100 };

    it("gives a key to its first claim only; the next claims see it in flight, then answered", async () => {
      const store = await makeStore(limits, () => 1_000);
      expect(await store.claim("k", "body-1")).toEqual({ state: "claimed" });
      expect(await store.claim("k", "body-1")).toEqual({ state: "in_flight", fingerprint: "body-1" });
      await store.keep("k", "body-1", aResponse);
      expect(await store.claim("k", "body-2")).toEqual({ state: "responded", fingerprint: "body-1", response: aResponse });
    });

    it("gives a key to exactly one of many claims made at once", async () => {
      const store = await makeStore(limits, () => 1_000);
      const claims = await Promise.all(Array.from({ length: 20 }, () => store.claim("k", "body-1")));
      expect(claims.filter((claim) => claim.state === "claimed")).toHaveLength(1);
    });

    it("lets a released claim go, but never a kept answer", async () => {
      const store = await makeStore(limits, () => 1_000);
      await store.claim("k", "body-1");
      await store.release("k");
      expect(await store.claim("k", "body-1")).toEqual({ state: "claimed" });
      await store.keep("k", "body-1", aResponse);
      await store.release("k");
      expect((await store.claim("k", "body-1")).state).toBe("responded");
    });

    it("forgets an answer once the TTL has passed on the given clock", async () => {
      let now = 1_000;
      const store = await makeStore(limits, () => now);
      await store.claim("k", "body-1");
      await store.keep("k", "body-1", aResponse);
      now += 59_999;
      expect((await store.claim("k", "body-1")).state).toBe("responded");
      now += 1;
      expect(await store.claim("k", "body-1")).toEqual({ state: "claimed" });
    });

    it("keeps at most maxKeys, forgetting the oldest", async () => {
      const store = await makeStore({ ttlMs: 60_000, maxKeys: 2 }, () => 1_000);
      for (const key of ["a", "b", "c"]) {
        await store.claim(key, "body");
        await store.keep(key, "body", aResponse);
      }
      expect((await store.claim("c", "body")).state).toBe("responded");
      expect((await store.claim("b", "body")).state).toBe("responded");
      expect(await store.claim("a", "body")).toEqual({ state: "claimed" });
    });

    it("forgets every key on reset", async () => {
      const store = await makeStore(limits, () => 1_000);
      await store.claim("k", "body-1");
      await store.keep("k", "body-1", aResponse);
      await store.reset();
      expect(await store.claim("k", "body-1")).toEqual({ state: "claimed" });
    });
  });
}
