// The shared store contracts, run against the Redis stores that replicas share, each test on a
// key prefix of its own; then what only a shared store has to get right: several replicas
// acting on the same keys at once.

import { afterAll, afterEach, describe, expect, it } from "vitest";
import { createRedisFaultPlan } from "../../src/stores/redis/faults.js";
import { createRedisIdempotencyStore } from "../../src/stores/redis/idempotency.js";
import { describeIdempotencyContract } from "./idempotency-contract.js";
import { openStoreChannel } from "../../src/stores/redis/channel.js";
import { connectRedis, type RedisConnection } from "../../src/stores/redis/connection.js";
import { createRedisJournal } from "../../src/stores/redis/journal.js";
import { createRedisOutbox } from "../../src/stores/redis/outbox.js";
import { createRedisRateLimiter } from "../../src/stores/redis/rate-limiter.js";
import { createRedisDueWork } from "../../src/stores/redis/due-work.js";
import { startReplicaLease, type ReplicaLease } from "../../src/stores/redis/replica-lease.js";
import { createRedisClockOffset } from "../../src/stores/redis/clock.js";
import { describeDueWorkContract } from "./due-work-contract.js";
import { describeClockOffsetContract } from "./clock-offset-contract.js";
import { createRedisDeliveryLog, createRedisWebhookStore } from "../../src/stores/redis/webhooks.js";
import { aWebhook, anAttempt, describeDeliveryLogContract, describeWebhookStoreContract, nextDeliveries } from "./webhooks-contract.js";
import { createRedisSettingsStore } from "../../src/stores/redis/settings.js";
import type { Outbox, OutboxLimits } from "../../src/domain/outbox.js";
import type { RuntimeSettings, SettingsStore } from "../../src/domain/settings.js";
import type { DeliveryLog } from "../../src/domain/webhooks.js";
import { aKeyPrefix, redisUnavailableReason, sharedRedis } from "../support/redis.js";
import { aTarget, describeFaultPlanContract } from "./faults-contract.js";
import { describeJournalContract } from "./journal-contract.js";
import { aMessage, describeOutboxContract } from "./outbox-contract.js";
import { describeRateLimiterContract } from "./rate-limiter-contract.js";
import { describeSettingsContract, startUpSettings } from "./settings-contract.js";

const unavailable = redisUnavailableReason();

describe.skipIf(unavailable !== undefined)(`redis stores${unavailable === undefined ? "" : ` (skipped: ${unavailable})`}`, () => {
  const closers: (() => Promise<void>)[] = [];

  /** A replica's connection; every call without a prefix starts a store of its own. */
  async function aConnection(keyPrefix = aKeyPrefix()): Promise<RedisConnection> {
    const { url } = await sharedRedis();
    const connection = await connectRedis({ url, keyPrefix, commandTimeoutMs: 2000 });
    closers.push(() => connection.close());
    return connection;
  }

  async function anOutboxOn(connection: RedisConnection, limits: OutboxLimits): Promise<Outbox> {
    const channel = await openStoreChannel(connection);
    closers.push(() => channel.close());
    return createRedisOutbox(connection, channel, limits);
  }

  /** A replica's settings on its own connection; a change by another replica reaches it over the channel. */
  async function settingsOn(connection: RedisConnection, startUp: RuntimeSettings = startUpSettings): Promise<SettingsStore> {
    const channel = await openStoreChannel(connection);
    closers.push(() => channel.close());
    return createRedisSettingsStore(connection, channel, startUp);
  }

  /** Pub/sub delivers a change to the other replicas a moment after it is stored: wait for it, within a bound. */
  async function untilSettingsOf(settings: SettingsStore, expected: RuntimeSettings): Promise<void> {
    await expect.poll(() => settings.current(), { timeout: 2000, interval: 10 }).toEqual(expected);
  }

  /** A replica's lease on its own connection; `leaseMs` short, so that a test sees it run out. */
  async function aLeaseOn(connection: RedisConnection, leaseMs = 10_000): Promise<ReplicaLease> {
    const lease = await startReplicaLease(connection, leaseMs);
    closers.push(() => {
      lease.stopRenewing();
      return Promise.resolve();
    });
    return lease;
  }

  /**
   * Waits until a lease that is not renewed would have run out: the owner's key would have
   * expired a lease length ago. Only a renewed key is still there then.
   */
  async function pastTheFirstLease(connection: RedisConnection, lease: ReplicaLease, leaseMs: number): Promise<void> {
    const ownerKey = `${lease.ownerKeyPrefix}${lease.owner}`;
    const firstExpiryMs = Date.now() + (await connection.commands.pttl(ownerKey));
    await expect.poll(() => Date.now() > firstExpiryMs + leaseMs, { timeout: 10 * leaseMs, interval: leaseMs / 4 }).toBe(true);
    expect(await connection.commands.exists(ownerKey)).toBe(1);
  }

  afterEach(async () => {
    // Newest first: a channel closes before the connection it listens on.
    for (const close of closers.splice(0).reverse()) await close();
  });

  afterAll(async () => {
    await (await sharedRedis()).stop();
  });

  describeOutboxContract("redis outbox", async (options) => anOutboxOn(await aConnection(), options), { propertyRuns: 30 });

  describeJournalContract("redis journal", async (options) => {
    const connection = await aConnection();
    const channel = await openStoreChannel(connection);
    closers.push(() => channel.close());
    return createRedisJournal(connection, channel, options);
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

  describe("work held by a replica that goes", () => {
    const leaseMs = 300;
    const anItem = (key: string) => ({ id: `lifecycle:${key}`, kind: "lifecycle", payload: "{}", dueAtMs: 1000 });

    /** Two replicas on one prefix, each with its lease and its due work. */
    async function twoReplicasWithDueWork() {
      const prefix = aKeyPrefix();
      const [one, other] = [await aConnection(prefix), await aConnection(prefix)];
      const [oneLease, otherLease] = [await aLeaseOn(one, leaseMs), await aLeaseOn(other, leaseMs)];
      return { one, oneLease, oneWork: createRedisDueWork(one, oneLease), otherWork: createRedisDueWork(other, otherLease) };
    }

    it("gives the due items a killed replica had taken, and not completed, to another once its lease runs out", async () => {
      const { oneLease, oneWork, otherWork } = await twoReplicasWithDueWork();
      for (const key of ["a", "b", "c"]) await oneWork.put(anItem(key));
      const [done] = await oneWork.claimDue(1000, 10);
      if (done) await oneWork.complete(done);

      oneLease.stopRenewing();

      expect(await otherWork.claimDue(1000, 10)).toEqual([]);
      await expect
        .poll(async () => (await otherWork.claimDue(1000, 10)).map((item) => item.id), { timeout: 5000, interval: 50 })
        .toEqual(["lifecycle:b", "lifecycle:c"]);
    });

    it("gives them to another at once when the replica lets go of its lease, as it does when it stops", async () => {
      const { oneLease, oneWork, otherWork } = await twoReplicasWithDueWork();
      await oneWork.put(anItem("a"));
      expect(await oneWork.claimDue(1000, 10)).toHaveLength(1);

      await oneLease.release();

      expect(await otherWork.claimDue(1000, 10)).toEqual([anItem("a")]);
      expect(await oneWork.claimDue(1000, 10)).toEqual([]);
    });

    it("keeps the items of a replica that lives its own past the lease length: it renews its lease", async () => {
      const { one, oneLease, oneWork, otherWork } = await twoReplicasWithDueWork();
      await oneWork.put(anItem("a"));
      expect(await oneWork.claimDue(1000, 10)).toHaveLength(1);

      await pastTheFirstLease(one, oneLease, leaseMs);

      expect(await otherWork.claimDue(1000, 10)).toEqual([]);
    });

    /** Two replicas on one prefix, each with its lease and its idempotency keys. */
    async function twoReplicasWithKeys() {
      const prefix = aKeyPrefix();
      const limits = { ttlMs: 86_400_000, maxKeys: 100 };
      const [one, other] = [await aConnection(prefix), await aConnection(prefix)];
      const [oneLease, otherLease] = [await aLeaseOn(one, leaseMs), await aLeaseOn(other, leaseMs)];
      return {
        one,
        oneLease,
        oneKeys: createRedisIdempotencyStore(one, limits, () => Date.now(), oneLease),
        otherKeys: createRedisIdempotencyStore(other, limits, () => Date.now(), otherLease),
      };
    }

    it("lets another replica claim a key a killed replica was answering once its lease runs out, not a day later", async () => {
      const { oneLease, oneKeys, otherKeys } = await twoReplicasWithKeys();
      expect(await oneKeys.claim("k", "body")).toEqual({ state: "claimed" });

      oneLease.stopRenewing();

      expect(await otherKeys.claim("k", "body")).toEqual({ state: "in_flight", fingerprint: "body" });
      await expect.poll(() => otherKeys.claim("k", "body"), { timeout: 5000, interval: 50 }).toEqual({ state: "claimed" });
      expect(await oneKeys.claim("k", "body")).toEqual({ state: "in_flight", fingerprint: "body" });
    });

    it("keeps a key a live replica is answering in flight past the lease length, and its answer once kept", async () => {
      const { one, oneLease, oneKeys, otherKeys } = await twoReplicasWithKeys();
      expect(await oneKeys.claim("k", "body")).toEqual({ state: "claimed" });

      await pastTheFirstLease(one, oneLease, leaseMs);

      expect(await otherKeys.claim("k", "body")).toEqual({ state: "in_flight", fingerprint: "body" });
      const response = { status: 200, headers: {}, body: "{}", messageId: "msg_1" };
      await oneKeys.keep("k", "body", response);
      await oneLease.release();
      expect(await otherKeys.claim("k", "body")).toEqual({ state: "responded", fingerprint: "body", response });
    });
  });

  describeClockOffsetContract("redis clock offset", async () => {
    const prefix = aKeyPrefix();
    const replica = async () => {
      const connection = await aConnection(prefix);
      const channel = await openStoreChannel(connection);
      closers.push(() => channel.close());
      return createRedisClockOffset(connection, channel);
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
    const channel = await openStoreChannel(connection);
    closers.push(() => channel.close());
    return createRedisDeliveryLog(connection, channel, capacity);
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

  describe("replicas sharing one prefix", () => {
    it("use the first replica's start-up webhooks, with its generated ids and secrets, and a reset on any brings those back", async () => {
      const prefix = aKeyPrefix();
      const first = await createRedisWebhookStore(await aConnection(prefix), [aWebhook()]);
      const second = await createRedisWebhookStore(await aConnection(prefix), [aWebhook()]);
      const startUp = await first.list();
      expect(await second.list()).toEqual(startUp);

      await first.add(aWebhook(), 10);
      await second.disable(startUp[0]?.id ?? "");
      expect(await first.list()).toHaveLength(2);
      expect((await first.get(startUp[0]?.id ?? ""))?.enabled).toBe(false);

      await second.reset();
      expect(await first.list()).toEqual(startUp);
    });

    it("share one clock offset: a move on one is read synchronously on the other once told, and a reset puts both back", async () => {
      const prefix = aKeyPrefix();
      const [oneConnection, otherConnection] = [await aConnection(prefix), await aConnection(prefix)];
      const [oneChannel, otherChannel] = [await openStoreChannel(oneConnection), await openStoreChannel(otherConnection)];
      closers.push(
        () => oneChannel.close(),
        () => otherChannel.close(),
      );
      const one = await createRedisClockOffset(oneConnection, oneChannel);
      const other = await createRedisClockOffset(otherConnection, otherChannel);

      const told = new Promise<void>((resolve) => {
        const stop = otherChannel.on("clock", () => {
          stop();
          resolve();
        });
      });
      expect(await one.advance(5000)).toBe(5000);
      await told;
      expect(other.current()).toBe(5000);
      expect(await other.advance(1000)).toBe(6000);

      const late = await createRedisClockOffset(await aConnection(prefix), oneChannel);
      expect(late.current()).toBe(6000);
      await one.reset();
      expect(one.current()).toBe(0);
    });

    it("fires a rule with times: 3 exactly three times, however many requests the replicas decide at once", async () => {
      const prefix = aKeyPrefix();
      const options = { initialRules: [{ fault: "server_error" as const, times: 3 }], seed: 7 };
      const one = await createRedisFaultPlan(await aConnection(prefix), options);
      const other = await createRedisFaultPlan(await aConnection(prefix), options);

      const outcomes = await Promise.all(Array.from({ length: 40 }, (_, request) => (request % 2 === 0 ? one : other).decide(aTarget, [])));

      expect(outcomes.filter((outcome) => outcome.fault?.kind === "server_error")).toHaveLength(3);
      expect(await one.list()).toEqual([]);
    });

    it("writes the config's rules once: a replica starting later finds them, and a rule one replica adds", async () => {
      const prefix = aKeyPrefix();
      const options = { initialRules: [{ fault: "disconnect" as const }], seed: 7 };
      const first = await createRedisFaultPlan(await aConnection(prefix), options);
      const added = await first.add({ fault: "rate_limit" });

      const second = await createRedisFaultPlan(await aConnection(prefix), options);

      expect(await second.list()).toEqual(await first.list());
      expect((await second.list()).map((rule) => rule.id)).toContain(added.id);
    });

    it("admits exactly `requests` per key across replicas taking at once", async () => {
      const prefix = aKeyPrefix();
      const one = createRedisRateLimiter(await aConnection(prefix));
      const other = createRedisRateLimiter(await aConnection(prefix));
      const limit = { requests: 5, perSeconds: 60 };

      const decisions = await Promise.all(Array.from({ length: 20 }, (_, take) => (take % 2 === 0 ? one : other).take("key-a", limit)));

      expect(decisions.filter((decision) => decision.allowed)).toHaveLength(5);
    });

    it("resolves a wait on one replica when another replica captures the match", async () => {
      const prefix = aKeyPrefix();
      const waitingReplica = await anOutboxOn(await aConnection(prefix), { capacity: 100 });
      const capturingReplica = await anOutboxOn(await aConnection(prefix), { capacity: 100 });
      const waiting = waitingReplica.waitFor({ to: "grace@example.com" }, { timeoutMs: 10_000 });

      const match = aMessage({ to: "grace@example.com" });
      await capturingReplica.add(match);

      await expect(waiting).resolves.toEqual(match);
    });
  });

  describe("replicas sharing their run-time settings", () => {
    it("shows a change made through one replica on the other", async () => {
      const prefix = aKeyPrefix();
      const one = await settingsOn(await aConnection(prefix));
      const other = await settingsOn(await aConnection(prefix));

      const changed = await one.update({ rateLimit: { requests: 3, perSeconds: 60 } });

      await untilSettingsOf(other, changed);
      expect(changed).toEqual({ ...startUpSettings, rateLimit: { requests: 3, perSeconds: 60 } });
    });

    it("keeps both of two changes to different settings made at once through two replicas", async () => {
      const prefix = aKeyPrefix();
      const one = await settingsOn(await aConnection(prefix));
      const other = await settingsOn(await aConnection(prefix));

      await Promise.all([one.update({ responseShape: "b" }), other.update({ strictData: true })]);

      const both = { ...startUpSettings, responseShape: "b", strictData: true } as const;
      await untilSettingsOf(one, both);
      await untilSettingsOf(other, both);
    });

    it("gives a replica starting later the changes already made, over its own start-up settings", async () => {
      const prefix = aKeyPrefix();
      const first = await settingsOn(await aConnection(prefix));
      await first.update({ responseShape: "b" });

      const later = await settingsOn(await aConnection(prefix), { responseShape: "a", strictData: true, rateLimit: null });

      expect(later.current()).toEqual({ responseShape: "b", strictData: true, rateLimit: null });
    });

    it("puts every replica back to its own start-up settings on a reset through one", async () => {
      const prefix = aKeyPrefix();
      const strictStartUp: RuntimeSettings = { responseShape: "a", strictData: true, rateLimit: null };
      const one = await settingsOn(await aConnection(prefix));
      const other = await settingsOn(await aConnection(prefix), strictStartUp);
      await one.update({ responseShape: "b", strictData: false });
      await untilSettingsOf(other, { ...strictStartUp, responseShape: "b", strictData: false });

      await one.reset();

      expect(one.current()).toEqual(startUpSettings);
      await untilSettingsOf(other, strictStartUp);
    });

    it("keeps the newer settings when an older state arrives late, as a write's own answer and the channel's copy of it may", async () => {
      const connection = await aConnection();
      const channel = await openStoreChannel(connection);
      closers.push(() => channel.close());
      const settings = await createRedisSettingsStore(connection, channel, startUpSettings);
      await settings.update({ responseShape: "b" });
      // Registered after the store's own listener, so it runs once the store has handled the event.
      const handled = new Promise<void>((resolve) => channel.on("settings", () => resolve()));

      await connection.commands.publish(channel.name, JSON.stringify({ type: "settings", version: 1, changes: [] }));
      await handled;

      expect(settings.current()).toEqual({ ...startUpSettings, responseShape: "b" });
    });

    it("catches up on a change made while its channel was away, once it listens again", async () => {
      const prefix = aKeyPrefix();
      const away = await aConnection(prefix);
      const missing = await settingsOn(away);
      const changing = await settingsOn(await aConnection(prefix));
      const { localPort } = away.subscriber.stream as { localPort?: number };

      // Cut this replica's subscriber connection only: the change below is published while it reconnects.
      await away.commands.client("KILL", "ADDR", `127.0.0.1:${String(localPort)}`);
      const changed = await changing.update({ strictData: true });

      await untilSettingsOf(missing, changed);
    });
  });

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
