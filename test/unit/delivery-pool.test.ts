// One mock's pool of webhook attempts, shared by every sandbox's delivering: its places bound them all, and a sandbox with a
// backlog does not keep another's attempts waiting behind it.

import { describe, expect, it } from "vitest";
import { createDeliveryPool, type DeliveryPool, type PoolPart } from "../../src/domain/delivery-pool.js";

/** A part that hands in its backlog as a delivering's scheduler does: as long as the pool has room, and again when woken. */
function aPartWithBacklog(pool: DeliveryPool, webhook: string, backlog: string[], started: string[], finishers: Map<string, () => void>) {
  const part: PoolPart = pool.part({ onRoom: () => handIn() });
  function handIn(): void {
    while (backlog.length > 0 && part.room() > 0) {
      const name = backlog.shift() ?? "";
      void part.add({
        lane: name,
        webhook,
        group: name,
        dueAtMs: 0,
        run: () =>
          new Promise<void>((resolve) => {
            started.push(name);
            finishers.set(name, resolve);
          }),
      });
    }
  }
  return { part, handIn };
}

describe("the delivery pool shared by every sandbox", () => {
  it("runs at most its concurrency of every part's jobs at once", () => {
    const pool = createDeliveryPool({ concurrency: 2, share: 2 });
    const started: string[] = [];
    const finishers = new Map<string, () => void>();
    const parts = ["a", "b", "c"].map((name) => aPartWithBacklog(pool, `webhook-${name}`, [`${name}1`, `${name}2`], started, finishers));
    for (const { handIn } of parts) handIn();

    expect(started).toEqual(["a1", "a2"]);
    expect(pool.size()).toBe(2);
  });

  it("wakes the part served least recently first when a place frees: a backlog does not starve a quiet part", async () => {
    const pool = createDeliveryPool({ concurrency: 1, share: 1 });
    const started: string[] = [];
    const finishers = new Map<string, () => void>();
    const busy = aPartWithBacklog(pool, "busy-hook", ["busy1", "busy2", "busy3"], started, finishers);
    const quiet = aPartWithBacklog(pool, "quiet-hook", ["quiet1"], started, finishers);
    busy.handIn();
    quiet.handIn();
    expect(started).toEqual(["busy1"]);

    finishers.get("busy1")?.();

    await expect.poll(() => started).toEqual(["busy1", "quiet1"]);
  });
});
