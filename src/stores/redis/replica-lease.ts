// A replica's lease on the work it holds in Redis: a key that lives as long as the replica does,
// renewed on a timer. Due work it claimed and Idempotency-Keys whose requests it serves name it; once its
// key is gone (killed, or stopped and let go), another replica takes them over.

import { randomUUID } from "node:crypto";
import type { RedisConnection } from "./connection.js";

export interface ReplicaLease {
  /** This replica's name in what it holds: no `/` in it, so a script can split it off a token. */
  readonly owner: string;
  /** `<ownerKeyPrefix><owner>` exists while that replica lives: the scripts check it there. */
  readonly ownerKeyPrefix: string;
  /** True once `release` was called: this replica takes no more work. */
  isReleased(): boolean;
  /** Lets go at once, as a stop does: the others take what it held without waiting for the lease to run out. */
  release(): Promise<void>;
  /** Stops renewing and leaves the key to expire, as a replica that is killed does (for tests). */
  stopRenewing(): void;
}

/**
 * Sets this replica's key for `leaseMs` and renews it every third of that, so two renewals can
 * fail (a busy Redis, a slow event loop) before the others think it gone. The timer is unref'd:
 * a lease never keeps a process alive.
 */
export async function startReplicaLease(connection: RedisConnection, leaseMs: number): Promise<ReplicaLease> {
  const owner = randomUUID();
  const ownerKeyPrefix = connection.key("replica:");
  const ownerKey = `${ownerKeyPrefix}${owner}`;
  const renew = (): Promise<unknown> => connection.run((redis) => redis.set(ownerKey, "1", "PX", leaseMs));
  await renew();
  // A renewal that fails is tried again at the next tick; until the key expires nothing is lost.
  const timer = setInterval(() => void renew().catch(() => undefined), Math.max(1, Math.floor(leaseMs / 3)));
  timer.unref();
  let released = false;
  return {
    owner,
    ownerKeyPrefix,
    isReleased: () => released,
    async release() {
      released = true;
      clearInterval(timer);
      await connection.run((redis) => redis.del(ownerKey));
    },
    stopRenewing: () => clearInterval(timer),
  };
}
