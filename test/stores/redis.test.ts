// The shared store contracts, run against the Redis stores that replicas share, each test on a
// key prefix of its own, and what a few contracts need beside them on a shared store. What only
// a shared store has to get right, several replicas acting on the same keys at once, is in
// redis-leases.test.ts, redis-replicas.test.ts and redis-prefix.test.ts.

import { it, describe, expect } from "vitest";
import { createRedisFaultPlan } from "../../src/stores/redis/faults.js";
import { createRedisIdempotencyStore } from "../../src/stores/redis/idempotency.js";
import { describeIdempotencyContract } from "./idempotency-contract.js";
import type { RedisConnection } from "../../src/stores/redis/connection.js";
import { createRedisJournal } from "../../src/stores/redis/journal.js";
import { createRedisRateLimiter } from "../../src/stores/redis/rate-limiter.js";
import { createRedisDueWork } from "../../src/stores/redis/due-work.js";
import { createRedisClockOffset } from "../../src/stores/redis/clock.js";
import { describeDueWorkContract } from "./due-work-contract.js";
import { describeClockOffsetContract } from "./clock-offset-contract.js";
import { createRedisDeliveryLog, createRedisWebhookStore } from "../../src/stores/redis/webhooks.js";
import { anAttempt, describeDeliveryLogContract, describeWebhookStoreContract, nextDeliveries } from "./webhooks-contract.js";
import type { DeliveryLog } from "../../src/domain/webhooks.js";
import { aKeyPrefix } from "../support/redis.js";
import { describeFaultPlanContract } from "./faults-contract.js";
import { describeJournalContract } from "./journal-contract.js";
import { describeOutboxCapacityContract } from "./outbox-capacity-contract.js";
import { describeOutboxReadingContract, type MakeOutbox } from "./outbox-contract.js";
import { describeOutboxEventsContract } from "./outbox-events-contract.js";
import { describeRateLimiterContract } from "./rate-limiter-contract.js";
import { describeRedisStores } from "./redis-stores.js";
import { describeSettingsContract } from "./settings-contract.js";

describeRedisStores(({ aConnection, aChannelOn, anOutboxOn, settingsOn, aLeaseOn }) => {
  const aRedisOutbox: MakeOutbox = async (options) => anOutboxOn(await aConnection(), options);
  describeOutboxReadingContract("redis outbox", aRedisOutbox);
  describeOutboxCapacityContract("redis outbox", aRedisOutbox, { propertyRuns: 30 });
  describeOutboxEventsContract("redis outbox", aRedisOutbox);

  describeJournalContract("redis journal", async (options) => {
    const connection = await aConnection();
    return createRedisJournal(connection, await aChannelOn(connection), options);
  });

  describeFaultPlanContract("redis fault plan", async (options) => createRedisFaultPlan(await aConnection(), options));

  describeRateLimiterContract("redis rate limiter", async (options) => createRedisRateLimiter(await aConnection(), () => 0, options?.maxBuckets));

  describe("redis rate limiter buckets", () => {
    /** The rate limiter's keys under `prefix`, each with its time to live (-1: none). */
    async function limiterKeys(connection: RedisConnection): Promise<Map<string, number>> {
      const names = await connection.run((redis) => redis.keys(`${connection.key("ratelimit")}*`));
      const ttls = await connection.run((redis) => Promise.all(names.map((name) => redis.pttl(name))));
      return new Map(names.map((name, index) => [name, ttls[index] ?? -1]));
    }

    it("keeps at most maxBuckets bucket keys, each with a time to live, however many API keys come", async () => {
      const connection = await aConnection();
      const limiter = createRedisRateLimiter(connection, () => 0, 50);
      const limit = { requests: 1, perSeconds: 60 };

      for (let key = 0; key < 500; key += 1) await limiter.take(`key-${key}`, limit);

      const kept = await limiterKeys(connection);
      // The buckets, the index of their last uses and the limit in force.
      expect(kept.size).toBeLessThanOrEqual(50 + 2);
      // All but the limit in force: one small key, whatever the number of API keys.
      const buckets = [...kept].filter(([name]) => name !== connection.key("ratelimit-limit"));
      expect(buckets.every(([, ttl]) => ttl > 0)).toBe(true);
      expect((await limiter.take("key-499", limit)).allowed).toBe(false);
    });

    it("forgets the buckets that have refilled at the next take, as the mock's clock moves", async () => {
      const connection = await aConnection();
      let offsetMs = 0;
      const limiter = createRedisRateLimiter(connection, () => offsetMs, 10_000);
      const limit = { requests: 5, perSeconds: 1 };
      for (let key = 0; key < 100; key += 1) await limiter.take(`key-${key}`, limit);

      offsetMs += 60_000;
      await limiter.take("key-last", limit);

      expect((await limiterKeys(connection)).size).toBeLessThanOrEqual(1 + 2);
    });
  });

  describeDueWorkContract("redis due work", async () => {
    const connection = await aConnection();
    return createRedisDueWork(connection, await aLeaseOn(connection));
  });

  describeIdempotencyContract("redis idempotency keys", async (limits, nowMs) => {
    const connection = await aConnection();
    return createRedisIdempotencyStore(connection, limits, nowMs, await aLeaseOn(connection));
  });

  describeClockOffsetContract("redis clock offset", async () => {
    const prefix = aKeyPrefix();
    const replica = async () => {
      const connection = await aConnection(prefix);
      return createRedisClockOffset(connection, await aChannelOn(connection));
    };
    return [await replica(), await replica()];
  });

  it("two replicas claiming one key at once: exactly one gets it", async () => {
    const keyPrefix = aKeyPrefix();
    const limits = { ttlMs: 60_000, maxKeys: 100 };
    const [connectionA, connectionB] = [await aConnection(keyPrefix), await aConnection(keyPrefix)];
    const replicaA = createRedisIdempotencyStore(connectionA, limits, () => Date.now(), await aLeaseOn(connectionA));
    const replicaB = createRedisIdempotencyStore(connectionB, limits, () => Date.now(), await aLeaseOn(connectionB));
    const claims = await Promise.all([replicaA.claim("k", "body"), replicaB.claim("k", "body")]);
    expect(claims.map((claim) => claim.state).sort()).toEqual(["claimed", "in_flight"]);
  });

  describeWebhookStoreContract("redis webhooks", async (startUp) => createRedisWebhookStore(await aConnection(), startUp));

  async function aDeliveryLogOn(connection: RedisConnection, capacity: number): Promise<DeliveryLog> {
    return createRedisDeliveryLog(connection, await aChannelOn(connection), capacity);
  }

  describeDeliveryLogContract("redis webhook deliveries", async (capacity) => aDeliveryLogOn(await aConnection(), capacity));

  it("tells every replica of a webhook attempt another one recorded, so each replica's event stream shows it", async () => {
    const prefix = aKeyPrefix();
    const [recording, listening] = [await aDeliveryLogOn(await aConnection(prefix), 10), await aDeliveryLogOn(await aConnection(prefix), 10)];
    const heard = nextDeliveries(listening, 1);
    const attempt = anAttempt("msg_a");
    await recording.add(attempt);
    expect(await heard).toEqual([attempt.delivery]);
    expect(await listening.list({})).toEqual([attempt.delivery]);
  });

  it("refills a rate-limit bucket when the mock's clock moves forward, though Redis's own clock has not", async () => {
    let offsetMs = 0;
    const limiter = createRedisRateLimiter(await aConnection(), () => offsetMs);
    const limit = { requests: 1, perSeconds: 60 };
    expect((await limiter.take("key-1", limit)).allowed).toBe(true);
    expect((await limiter.take("key-1", limit)).allowed).toBe(false);
    offsetMs += 60_000;
    expect((await limiter.take("key-1", limit)).allowed).toBe(true);
  });
  describeSettingsContract("redis settings", async (startUp) => settingsOn(await aConnection(), startUp));
});
