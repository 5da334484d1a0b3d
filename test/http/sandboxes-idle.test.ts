// An idle sandbox is cheap (docs/sandboxes.md#bounds): 1000 of them on the memory store stay within a stated heap, and none
// holds a timer of its own.

import { createHook } from "node:async_hooks";
import { describe, expect, it } from "vitest";
import { liveHeapBytes } from "../support/heap.js";
import { aMockForThisTest } from "../support/helpers.js";

const SANDBOXES = 1000;
/** Measured ~27 KB of heap per idle sandbox (its empty stores and the services over them); the bound leaves room for noise. */
const BOUND_BYTES_PER_SANDBOX = 40 * 1024;

/** The timers (set, not yet fired or cleared) created while `act` runs and still there after it, unref'd ones included. */
async function timersLeftBy(act: () => Promise<void>): Promise<number> {
  const live = new Set<number>();
  const hook = createHook({
    init(id, type) {
      if (type === "Timeout") live.add(id);
    },
    destroy(id) {
      live.delete(id);
    },
  }).enable();
  try {
    await act();
    return live.size;
  } finally {
    hook.disable();
  }
}

describe("idle sandboxes", () => {
  it(`${SANDBOXES} idle sandboxes on the memory store hold less than ${BOUND_BYTES_PER_SANDBOX / 1024} KB of heap each, and no timer`, async () => {
    const mock = await aMockForThisTest({ maxSandboxes: SANDBOXES + 1 });
    await mock.sandbox("warm-up");
    const before = liveHeapBytes();

    const timers = await timersLeftBy(async () => {
      for (let index = 0; index < SANDBOXES; index += 1) await mock.sandbox(`idle-${index}`);
    });

    expect(timers).toBe(0);
    expect(liveHeapBytes() - before).toBeLessThan(SANDBOXES * BOUND_BYTES_PER_SANDBOX);
    expect((await (await mock.sandbox(`idle-${SANDBOXES - 1}`)).outbox.list()).total).toBe(0);
  });
});
