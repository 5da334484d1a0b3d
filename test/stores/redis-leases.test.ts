// The redis stores' replica leases: the due work and the idempotency keys a replica held, when it
// is killed, lets go or lives on past the lease length, on the Redis that replicas share.

import { describe, expect, it } from "vitest";
import { createRedisIdempotencyStore } from "../../src/stores/redis/idempotency.js";
import type { RedisConnection } from "../../src/stores/redis/connection.js";
import { createRedisDueWork } from "../../src/stores/redis/due-work.js";
import type { ReplicaLease } from "../../src/stores/redis/replica-lease.js";
import { aKeyPrefix } from "../support/redis.js";
import { describeRedisStores } from "./redis-stores.js";

describeRedisStores(({ aConnection, aLeaseOn }) => {
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
});
