// Several redis store replicas on one key prefix, acting at once: start-up webhooks, the clock
// offset, fault rules, rate limits, waits and the run-time settings they share.

import { describe, expect, it } from "vitest";
import { createRedisFaultPlan } from "../../src/stores/redis/faults.js";
import { openStoreChannel } from "../../src/stores/redis/channel.js";
import { createRedisRateLimiter } from "../../src/stores/redis/rate-limiter.js";
import { createRedisClockOffset } from "../../src/stores/redis/clock.js";
import { createRedisWebhookStore } from "../../src/stores/redis/webhooks.js";
import { aWebhook } from "./webhooks-contract.js";
import { createRedisSettingsStore } from "../../src/stores/redis/settings.js";
import type { RuntimeSettings, SettingsStore } from "../../src/domain/settings.js";
import { aKeyPrefix } from "../support/redis.js";
import { aTarget } from "./faults-contract.js";
import { aMessage } from "./outbox-contract.js";
import { describeRedisStores } from "./redis-stores.js";
import { startUpSettings } from "./settings-contract.js";

describeRedisStores(({ closers, aConnection, anOutboxOn, settingsOn }) => {
  /** Pub/sub delivers a change to the other replicas a moment after it is stored: wait for it, within a bound. */
  async function untilSettingsOf(settings: SettingsStore, expected: RuntimeSettings): Promise<void> {
    await expect.poll(() => settings.current(), { timeout: 2000, interval: 10 }).toEqual(expected);
  }

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
});
