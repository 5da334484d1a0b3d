// Sandboxes on the Redis store: the registry of their names held to its contract by two replicas, and each sandbox's
// stores under a key prefix of their own, apart from the default sandbox's and shared by the replicas.

import { describe, expect, it } from "vitest";
import { resolveConfig } from "../../src/config/resolve.js";
import { DEFAULT_SANDBOX } from "../../src/domain/sandboxes.js";
import { openStores } from "../../src/stores/index.js";
import { createRedisSandboxRegistry } from "../../src/stores/redis/sandboxes.js";
import { aKeyPrefix, sharedRedis } from "../support/redis.js";
import { aMessage } from "./outbox-contract.js";
import { describeRedisStores } from "./redis-stores.js";
import { describeSandboxRegistryContract } from "./sandbox-registry-contract.js";

describeRedisStores(({ closers, aConnection }) => {
  describeSandboxRegistryContract("redis sandbox registry, two replicas", async () => {
    const prefix = aKeyPrefix();
    return [createRedisSandboxRegistry(await aConnection(prefix)), createRedisSandboxRegistry(await aConnection(prefix))];
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
