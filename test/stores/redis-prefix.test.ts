// What a redis store keeps under its key prefix, and only there: rate-limit buckets, q's word
// index (kept out of Redis) and fault rules' API keys (kept only as digests).

import { describe, expect, it } from "vitest";
import { createRedisFaultPlan } from "../../src/stores/redis/faults.js";
import { createRedisRateLimiter } from "../../src/stores/redis/rate-limiter.js";
import { aKeyPrefix } from "../support/redis.js";
import { aMessage } from "./outbox-contract.js";
import { describeRedisStores } from "./redis-stores.js";

describeRedisStores(({ aConnection, anOutboxOn }) => {
  describe("what a store keeps under its prefix", () => {
    it("resets the buckets of its own prefix only, even a prefix with glob characters in it", async () => {
      const base = aKeyPrefix();
      const globbed = createRedisRateLimiter(await aConnection(`${base}[*]:`));
      const neighbour = createRedisRateLimiter(await aConnection(`${base}*:`));
      const limit = { requests: 1, perSeconds: 60 };
      await globbed.take("key-a", limit);
      await neighbour.take("key-a", limit);

      await globbed.reset();

      expect((await globbed.take("key-a", limit)).allowed).toBe(true);
      expect((await neighbour.take("key-a", limit)).allowed).toBe(false);
    });

    it("answers q from its word index, reading only the messages filed under the query's words", async () => {
      const connection = await aConnection();
      const outbox = await anOutboxOn(connection, { capacity: 100 });
      const parcels = Array.from({ length: 40 }, (_, index) => aMessage({ subject: `Parcel ${String(index)} is on its way` }));
      const wanted = aMessage({ text: "Your code is tok_123" });
      for (const message of [...parcels.slice(0, 20), wanted, ...parcels.slice(20)]) await outbox.add(message);
      // The index is the replica's own, built at its first search (as in memory) and caught up at each one after.
      await outbox.list({ q: "parcel" });
      const read: string[] = [];
      const hmget = connection.commands.hmget.bind(connection.commands);
      connection.commands.hmget = ((key: string, ...fields: string[]) => {
        if (key === connection.key("outbox:messages")) read.push(...fields);
        return hmget(key, ...fields);
      }) as typeof connection.commands.hmget;

      expect((await outbox.list({ q: "TOK_123" })).messages.map((message) => message.id)).toEqual([wanted.id]);
      // The search read the one message that holds the word; the page then read it again to respond.
      expect(new Set(read)).toEqual(new Set([wanted.id]));
    });

    it("keeps q's word index out of Redis, and finds nothing of messages deleted, dropped past capacity or cleared", async () => {
      const connection = await aConnection();
      const outbox = await anOutboxOn(connection, { capacity: 2 });
      const otherReplica = await anOutboxOn(connection, { capacity: 2 });
      const indexKeys = async (): Promise<string[]> => (await connection.commands.keys(`${connection.key("outbox:q:")}*`)).sort();
      const [first, second, third] = [aMessage({ subject: "Alpha wombat" }), aMessage({ subject: "Beta wombat" }), aMessage({ subject: "Gamma" })];
      await outbox.add(first);
      expect((await otherReplica.list({ q: "wombat" })).total).toBe(1);
      await outbox.add(second);
      await outbox.delete(second.id);
      await outbox.add(third);
      await outbox.add(aMessage({ subject: "Delta" }));

      // First was dropped past capacity and second deleted: neither is found, by either replica.
      for (const replica of [outbox, otherReplica]) {
        expect((await replica.list({ q: "wombat" })).total).toBe(0);
        expect((await replica.list({ q: "gamma" })).messages.map((message) => message.id)).toEqual([third.id]);
      }
      expect(await indexKeys()).toEqual([]);

      await outbox.clear();
      expect((await otherReplica.list({ q: "gamma" })).total).toBe(0);
    });

    it("keeps no API key of a fault rule in Redis, only its digest", async () => {
      const connection = await aConnection();
      const plan = await createRedisFaultPlan(connection, { initialRules: [{ fault: "disconnect", match: { api_key: "config-secret-key-1" } }], seed: 7 });
      await plan.add({ fault: "rate_limit", match: { api_key: "added-secret-key-2" } });

      const stored = await connection.commands.hvals(connection.key("faults:rules"));

      expect(stored).toHaveLength(2);
      expect(stored.join("\n")).not.toMatch(/config-secret-key-1|added-secret-key-2/);
    });
  });
});
