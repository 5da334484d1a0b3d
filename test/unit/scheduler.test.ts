// The scheduler of due work: what falls due on an advanced clock runs in time order, each item
// once, including what the items themselves schedule; nothing runs after it stops.

import { afterEach, describe, expect, it, vi } from "vitest";
import { createClock, createLocalClockOffset } from "../../src/domain/clock.js";
import { createScheduler, type DueHandler } from "../../src/domain/scheduler.js";
import { createMemoryDueWork } from "../../src/stores/memory/index.js";

const REAL_NOW = Date.parse("2026-11-22T09:00:00.000Z");

/** A scheduler on a clock frozen at REAL_NOW plus its offset, recording what ran. */
function aScheduler(handlers: Record<string, DueHandler> = {}) {
  const offset = createLocalClockOffset();
  const clock = createClock(offset, () => REAL_NOW);
  const store = createMemoryDueWork();
  const ran: string[] = [];
  const scheduler = createScheduler({
    store,
    clock,
    handlers: {
      note: (payload, dueAtMs) => {
        ran.push(`${JSON.parse(payload) as string}@${dueAtMs - REAL_NOW}`);
        return Promise.resolve();
      },
      ...handlers,
    },
  });
  const advance = async (ms: number): Promise<void> => {
    await offset.advance(ms);
    await scheduler.runDue();
  };
  return { scheduler, store, ran, advance };
}

describe("the scheduler", () => {
  it("runs nothing before it is due, then each item once at its due time, earliest first", async () => {
    const { scheduler, ran, advance } = aScheduler();
    await scheduler.schedule("note", "b", "b", REAL_NOW + 2000);
    await scheduler.schedule("note", "a", "a", REAL_NOW + 1000);
    await scheduler.schedule("note", "c", "c", REAL_NOW + 5000);

    await advance(999);
    expect(ran).toEqual([]);
    await advance(1001);
    expect(ran).toEqual(["a@1000", "b@2000"]);
    await advance(10_000);
    await advance(10_000);
    expect(ran).toEqual(["a@1000", "b@2000", "c@5000"]);
    scheduler.stop();
  });

  it("keeps time order when a running item schedules the next one before the rest of the batch", async () => {
    const { scheduler, ran, advance } = aScheduler({
      chain: async (payload, dueAtMs) => {
        const step = JSON.parse(payload) as number;
        ran.push(`chain${step}@${dueAtMs - REAL_NOW}`);
        if (step < 3) await scheduler.schedule("chain", "x", step + 1, dueAtMs + 1000);
      },
    });
    await scheduler.schedule("chain", "x", 1, REAL_NOW + 1000);
    await scheduler.schedule("note", "late", "late", REAL_NOW + 2500);

    await advance(5000);

    expect(ran).toEqual(["chain1@1000", "chain2@2000", "late@2500", "chain3@3000"]);
    scheduler.stop();
  });

  it("goes on with the next item when one fails, and reports it", async () => {
    const failures: string[] = [];
    const offset = createLocalClockOffset();
    const clock = createClock(offset, () => REAL_NOW);
    const ran: string[] = [];
    const scheduler = createScheduler({
      store: createMemoryDueWork(),
      clock,
      handlers: {
        boom: () => Promise.reject(new Error("boom")),
        note: (payload) => {
          ran.push(JSON.parse(payload) as string);
          return Promise.resolve();
        },
      },
      onError: (error, item) => failures.push(`${item.id}: ${(error as Error).message}`),
    });
    await scheduler.schedule("boom", "1", null, REAL_NOW + 1);
    await scheduler.schedule("note", "2", "after", REAL_NOW + 2);
    await offset.advance(10);
    await scheduler.runDue();
    expect(failures).toEqual(["boom:1: boom"]);
    expect(ran).toEqual(["after"]);
    scheduler.stop();
  });

  it("runs nothing once stopped", async () => {
    const { scheduler, ran, store, advance } = aScheduler();
    await scheduler.schedule("note", "a", "a", REAL_NOW + 1000);
    scheduler.stop();
    await advance(5000);
    expect(ran).toEqual([]);
    expect(await store.size()).toBe(1);
  });

  it("forgets unscheduled and cleared items", async () => {
    const { scheduler, ran, advance } = aScheduler();
    await scheduler.schedule("note", "a", "a", REAL_NOW + 1000);
    await scheduler.schedule("note", "b", "b", REAL_NOW + 1000);
    await scheduler.unschedule("note", ["a"]);
    await advance(2000);
    expect(ran).toEqual(["b@1000"]);
    await scheduler.schedule("note", "c", "c", REAL_NOW + 3000);
    await scheduler.clear("note");
    await advance(2000);
    expect(ran).toEqual(["b@1000"]);
    scheduler.stop();
  });
});

describe("the scheduler's timer", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("wakes when real time reaches an item, sooner when the clock was advanced meanwhile", async () => {
    vi.useFakeTimers({ now: REAL_NOW });
    const offset = createLocalClockOffset();
    const clock = createClock(offset);
    const ran: number[] = [];
    const scheduler = createScheduler({
      store: createMemoryDueWork(),
      clock,
      handlers: {
        note: (_payload, dueAtMs) => {
          ran.push(dueAtMs - REAL_NOW);
          return Promise.resolve();
        },
      },
    });
    await scheduler.schedule("note", "a", null, REAL_NOW + 1000);
    await scheduler.schedule("note", "b", null, REAL_NOW + 5000);
    await vi.advanceTimersByTimeAsync(1000);
    expect(ran).toEqual([1000]);

    // 3 s of the mock's clock skipped: b is due 1 s of real time later, not 4 s.
    await offset.advance(3000);
    await scheduler.runDue();
    await vi.advanceTimersByTimeAsync(1000);
    expect(ran).toEqual([1000, 5000]);
    scheduler.stop();
  });
});
