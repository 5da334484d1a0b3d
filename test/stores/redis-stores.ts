// What every redis store test file shares: its tests skip, saying why, without a Redis; each test
// opens connections and stores of its own, on a key prefix of its own, closed after it; and the
// shared Redis stops after the file.

import { afterAll, afterEach, describe } from "vitest";
import { openStoreChannel, type StoreChannel } from "../../src/stores/redis/channel.js";
import { connectRedis, type RedisConnection } from "../../src/stores/redis/connection.js";
import { createRedisOutbox } from "../../src/stores/redis/outbox.js";
import { startReplicaLease, type ReplicaLease } from "../../src/stores/redis/replica-lease.js";
import { createRedisSettingsStore } from "../../src/stores/redis/settings.js";
import type { Outbox, OutboxLimits } from "../../src/domain/outbox.js";
import type { RuntimeSettings, SettingsStore } from "../../src/domain/settings.js";
import { aKeyPrefix, redisUnavailableReason, sharedRedis } from "../support/redis.js";
import { startUpSettings } from "./settings-contract.js";

/** What a file's tests open their stores with. */
export interface RedisStoreTests {
  /** What a test opened, closed newest first after it. */
  readonly closers: (() => Promise<void>)[];
  /** A replica's connection; every call without a prefix starts a store of its own. */
  readonly aConnection: (keyPrefix?: string) => Promise<RedisConnection>;
  /** A replica's store channel on `connection`, closed after the test. */
  readonly aChannelOn: (connection: RedisConnection) => Promise<StoreChannel>;
  readonly anOutboxOn: (connection: RedisConnection, limits: OutboxLimits) => Promise<Outbox>;
  /** A replica's settings on its own connection; a change by another replica reaches it over the channel. */
  readonly settingsOn: (connection: RedisConnection, startUp?: RuntimeSettings) => Promise<SettingsStore>;
  /** A replica's lease on its own connection; `leaseMs` short, so that a test sees it run out. */
  readonly aLeaseOn: (connection: RedisConnection, leaseMs?: number) => Promise<ReplicaLease>;
}

/** The file's tests, declared by `declareTests` within the "redis stores" describe. */
export function describeRedisStores(declareTests: (stores: RedisStoreTests) => void): void {
  const unavailable = redisUnavailableReason();

  describe.skipIf(unavailable !== undefined)(`redis stores${unavailable === undefined ? "" : ` (skipped: ${unavailable})`}`, () => {
    const closers: (() => Promise<void>)[] = [];

    async function aConnection(keyPrefix = aKeyPrefix()): Promise<RedisConnection> {
      const { url } = await sharedRedis();
      const connection = await connectRedis({ url, keyPrefix, commandTimeoutMs: 2000 });
      closers.push(() => connection.close());
      return connection;
    }

    async function aChannelOn(connection: RedisConnection): Promise<StoreChannel> {
      const channel = await openStoreChannel(connection);
      closers.push(() => channel.close());
      return channel;
    }

    async function anOutboxOn(connection: RedisConnection, limits: OutboxLimits): Promise<Outbox> {
      return createRedisOutbox(connection, await aChannelOn(connection), limits);
    }

    async function settingsOn(connection: RedisConnection, startUp: RuntimeSettings = startUpSettings): Promise<SettingsStore> {
      return createRedisSettingsStore(connection, await aChannelOn(connection), startUp);
    }

    async function aLeaseOn(connection: RedisConnection, leaseMs = 10_000): Promise<ReplicaLease> {
      const lease = await startReplicaLease(connection, leaseMs);
      closers.push(() => {
        lease.stopRenewing();
        return Promise.resolve();
      });
      return lease;
    }

    afterEach(async () => {
      // Newest first: a channel closes before the connection it listens on.
      for (const close of closers.splice(0).reverse()) await close();
    });

    afterAll(async () => {
      await (await sharedRedis()).stop();
    });

    declareTests({ closers, aConnection, aChannelOn, anOutboxOn, settingsOn, aLeaseOn });
  });
}
