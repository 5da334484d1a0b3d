// Sandboxes on the Redis store: the registry of their names held to its contract by two replicas, and each sandbox's
// stores under a key prefix of their own, apart from the default sandbox's and shared by the replicas.

import { describe, expect, it } from "vitest";
import { resolveConfig } from "../../src/config/resolve.js";
import { DEFAULT_SANDBOX } from "../../src/domain/sandboxes.js";
import { openStores } from "../../src/stores/index.js";
import { createRedisSandboxRegistry } from "../../src/stores/redis/sandboxes.js";
import type { StoreChannel } from "../../src/stores/redis/channel.js";
import { aKeyPrefix, sharedRedis } from "../support/redis.js";
import { aMessage } from "./outbox-contract.js";
import { describeRedisStores } from "./redis-stores.js";
import { describeSandboxRegistryContract } from "./sandbox-registry-contract.js";
import { describeSharedBoundsContract } from "./shared-bounds-contract.js";
import { createRedisSharedBounds } from "../../src/stores/redis/shared-bounds.js";
import { createRedisOutbox } from "../../src/stores/redis/outbox.js";
import { createRedisJournal } from "../../src/stores/redis/journal.js";
import { sandboxKeyPrefix, withKeyPrefix } from "../../src/stores/redis/key-prefix.js";
import type { RedisConnection } from "../../src/stores/redis/connection.js";

describeRedisStores(({ closers, aConnection, aChannelOn }) => {
  describeSandboxRegistryContract("redis sandbox registry, two replicas", async () => {
    const prefix = aKeyPrefix();
    const aReplica = async () => {
      const connection = await aConnection(prefix);
      return createRedisSandboxRegistry(connection, await aChannelOn(connection));
    };
    return [await aReplica(), await aReplica()];
  });

  describeSharedBoundsContract("redis bounds shared by sandboxes, each sandbox on a replica of its own", async (limits) => {
    const prefix = aKeyPrefix();
    const bounds = createRedisSharedBounds(await aConnection(prefix), limits);
    /** The sandbox's keys and channel on a replica's connection of its own. */
    const sandboxOn = async (sandbox: string): Promise<[RedisConnection, StoreChannel]> => {
      const connection = withKeyPrefix(await aConnection(prefix), sandboxKeyPrefix(sandbox));
      return [connection, await aChannelOn(connection)];
    };
    return {
      bounds,
      async outboxOf(sandbox) {
        const [connection, channel] = await sandboxOn(sandbox);
        return createRedisOutbox(connection, channel, { capacity: limits.messages.capacity }, bounds.forSandbox(sandbox).messages);
      },
      async journalOf(sandbox) {
        const [connection, channel] = await sandboxOn(sandbox);
        return createRedisJournal(connection, channel, { capacity: limits.journal.capacity }, bounds.forSandbox(sandbox).journal);
      },
    };
  });

  describe("sandboxes on one prefix", () => {
    it("keep each sandbox's state under its own keys, apart from the default's, and shared by two replicas", async () => {
      const keyPrefix = aKeyPrefix();
      const aReplica = async () => {
        const stores = await openStores(resolveConfig({ redisUrl: (await sharedRedis()).url, keyPrefix }, "options"));
        closers.push(() => stores.close());
        return stores;
      };
      const [one, other] = [await aReplica(), await aReplica()];
      const [oneDefault, oneWorker, otherWorker] = [await one.openScope(DEFAULT_SANDBOX), await one.openScope("worker-1"), await other.openScope("worker-1")];

      await oneWorker.outbox.add(aMessage({ id: "msg_in_worker_1" }));
      await oneWorker.clockOffset.advance(5000);

      expect((await otherWorker.outbox.list()).messages.map((message) => message.id)).toEqual(["msg_in_worker_1"]);
      expect((await oneDefault.outbox.list()).total).toBe(0);
      await expect.poll(() => otherWorker.clockOffset.current(), { timeout: 2000, interval: 10 }).toBe(5000);
      expect(oneDefault.clockOffset.current()).toBe(0);
    });
  });
});
