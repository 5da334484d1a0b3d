// Work due at a time of the mock's clock (a lifecycle step, a webhook attempt): kept behind a
// store, run when real time reaches it (a timer to the next item) or when the clock is advanced,
// in time order, each item once even with several replicas on one store.

import { performance } from "node:perf_hooks";
import type { Clock } from "./clock.js";
import { turnStart } from "./turns.js";

/** One piece of due work. `id` is `<kind>:<key>`: scheduling the same id again replaces it. */
export interface DueItem {
  id: string;
  kind: string;
  /** JSON, read by the kind's handler. */
  payload: string;
  dueAtMs: number;
  /** What it belongs to (a message's id): `removeGroups` forgets every item of a group at once. */
  group?: string;
}

/** Where due work waits. Asynchronous so that a store shared by replicas can stand in. */
export interface DueWorkStore {
  put(item: DueItem): Promise<void>;
  /** Forgets these ids (those already gone are ignored). */
  remove(ids: readonly string[]): Promise<void>;
  /**
   * Takes, atomically, up to `limit` items due at or before `nowMs`, earliest first, and holds
   * them: an item taken here is taken by no other replica while this one lives. It stays held
   * until `complete`; a replica that goes first (killed, or stopped) leaves it to the others.
   */
  claimDue(nowMs: number, limit: number): Promise<DueItem[]>;
  /**
   * Ends the hold on an item `claimDue` gave once it has run: it is forgotten, unless it was put
   * again under its id since (the next step of its message), which stays.
   */
  complete(item: DueItem): Promise<void>;
  /** The due time of the earliest item, if any. */
  nextDueAtMs(): Promise<number | undefined>;
  /** Forgets every item of `kind`. */
  clear(kind: string): Promise<void>;
  /** Forgets every item whose `group` is one of these. */
  removeGroups(groups: readonly string[]): Promise<void>;
  /** Items waiting now (for stats and tests). */
  size(): Promise<number>;
}

/**
 * Runs the items of one kind; `dueAtMs` is when it was due on the mock's clock (its events' time).
 * A handler that only starts the work (a webhook attempt handed to the delivery pool) returns
 * `{running}`: the item stays held until that settles, so a replica that goes meanwhile leaves it
 * to the others instead of losing it.
 */
export type DueHandler = (payload: string, dueAtMs: number) => Promise<unknown>;

/** What a handler that only starts its work returns: the work, running. */
export interface StartedWork {
  running: Promise<void>;
}

const isStarted = (value: unknown): value is StartedWork => typeof value === "object" && value !== null && "running" in value;

export interface Scheduler {
  /** Schedules `payload` for `dueAtMs`, in `group` if given; replaces what `kind:key` had. */
  schedule(kind: string, key: string, payload: unknown, dueAtMs: number, group?: string): Promise<void>;
  unschedule(kind: string, keys: readonly string[]): Promise<void>;
  clear(kind: string): Promise<void>;
  /**
   * Runs everything due now, in time order, including what running it schedules for now or
   * before (as much as `room` lets in, when given). A long run lets other work of the process
   * (requests) in between its items.
   */
  runDue(): Promise<void>;
  /** Stops the timer; nothing runs after it. */
  stop(): void;
}

/**
 * Wakes a scheduler when work it did not schedule may be due: with a shared store another replica
 * may schedule earlier work or stop before running its own. One watch looks at every sandbox's
 * store at once (stores/redis/due-watch.ts), so an idle scheduler holds no timer of its own.
 * Returns the unwatch.
 */
export type WatchDue = (wake: () => void) => () => void;

export interface SchedulerOptions {
  store: DueWorkStore;
  clock: Clock;
  handlers: Record<string, DueHandler>;
  /** Left out when the store is this mock's own: then only what it schedules is due. */
  watch?: WatchDue;
  /** Where a failed item is reported; the scheduler goes on with the next. */
  onError?: (error: unknown, item: DueItem) => void;
  /**
   * How many more items may be handed to the handlers now; the rest wait in the store (where
   * other replicas may take them), and whoever makes room calls `runDue` again. No bound when
   * left out.
   */
  room?: () => number;
}

/** Claimed per round trip: large enough that advancing over many messages stays quick. */
const CLAIM_BATCH = 100;
/**
 * Longest stretch a run keeps the event loop before it lets other work in. 40,000 steps in one
 * go (10,000 messages advanced over 4 events) held every request 613-731 ms; a request now waits
 * for the few stretches it needs turns of the loop in (20-60 ms measured). The next stretch
 * waits for the start of a turn (turns.ts): /send's responses go out at the end of the turn, and
 * a stretch resumed there held them, so a small send beside 600 sends of an 800 KB subject to
 * one webhook waited 82-84 ms (p99) instead of 43.
 */
const SLICE_MS = 10;
/** A store that could not be read is looked at again after this long. */
const RETRY_AFTER_FAILURE_MS = 1000;
/** setTimeout's largest delay; a later item is looked at again then. */
const MAX_TIMER_MS = 2_147_483_647;

export function createScheduler(options: SchedulerOptions): Scheduler {
  const { store, clock, handlers } = options;
  let timer: NodeJS.Timeout | undefined;
  let timerWakesAtRealMs = Number.POSITIVE_INFINITY;
  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  /** A run queued behind the current one and not started: another caller joins it. */
  let queued: Promise<void> | undefined;
  /** Earliest due time scheduled while a batch runs: an item of the batch due after it must wait. */
  let scheduledDuringRun = Number.POSITIVE_INFINITY;

  const idOf = (kind: string, key: string): string => `${kind}:${key}`;

  /**
   * Sets the timer to wake at `dueAtMs` on the mock's clock, unless it already wakes sooner.
   * Compared in real time: a timer set before the clock was advanced wakes later on the mock's
   * clock than its due time said.
   */
  function arm(dueAtMs: number | undefined): void {
    if (stopped) return;
    const delayMs = dueAtMs === undefined ? Number.POSITIVE_INFINITY : Math.max(0, dueAtMs - clock.nowMs());
    if (!Number.isFinite(delayMs)) return;
    const wakesAtRealMs = Date.now() + delayMs;
    if (timer !== undefined && wakesAtRealMs >= timerWakesAtRealMs) return;
    clearTimeout(timer);
    timerWakesAtRealMs = wakesAtRealMs;
    // Unref'd: pending steps never keep a process (a test runner, a CLI) alive.
    timer = setTimeout(
      () => {
        timer = undefined;
        runDue().catch(() => undefined);
      },
      Math.min(MAX_TIMER_MS, delayMs),
    );
    timer.unref();
  }

  /** Runs an item and ends its hold: at once, or in the background once what it started has settled. */
  async function runItem(item: DueItem): Promise<void> {
    const handler = handlers[item.kind];
    let started: StartedWork | undefined;
    try {
      const result: unknown = handler === undefined ? undefined : await handler(item.payload, item.dueAtMs);
      if (isStarted(result)) started = result;
    } catch (error) {
      options.onError?.(error, item);
    }
    if (started === undefined) {
      await store.complete(item);
      return;
    }
    // Stopped meanwhile: the hold stays, and on a shared store another replica takes the item.
    void started.running.then(() => (stopped ? undefined : store.complete(item))).catch((error: unknown) => options.onError?.(error, item));
  }

  async function runOnce(): Promise<void> {
    let sliceStartedAt = performance.now();
    for (;;) {
      const room = Math.min(CLAIM_BATCH, options.room?.() ?? CLAIM_BATCH);
      // No room: whoever makes some runs it again, and a timer armed now would only spin.
      if (room <= 0) return;
      const batch = await store.claimDue(clock.nowMs(), room);
      if (batch.length === 0) break;
      scheduledDuringRun = Number.POSITIVE_INFINITY;
      for (const [index, item] of batch.entries()) {
        // A step scheduled by an earlier item of this batch falls due before this one: put the
        // rest back and claim again, so that events keep their time order.
        if (scheduledDuringRun < item.dueAtMs) {
          for (const left of batch.slice(index)) await store.put(left);
          break;
        }
        await runItem(item);
        if (performance.now() - sliceStartedAt >= SLICE_MS) {
          await turnStart();
          sliceStartedAt = performance.now();
          // Stopped meanwhile: what this batch still holds is dropped here, and on a shared store
          // taken over by another replica once this one's lease is gone.
          if (stopped) return;
        }
      }
    }
    arm(await store.nextDueAtMs());
  }

  function runDue(): Promise<void> {
    if (stopped) return Promise.resolve();
    // One run at a time in a process. A caller joins the run queued after the current one if
    // there is one: it starts later than the call, so it sees everything due by then.
    if (queued !== undefined) return queued;
    const run = running.then(() => {
      queued = undefined;
      return runOnce();
    });
    queued = run;
    // A store that failed (Redis away) is tried again a moment later; the caller hears the failure.
    running = run.catch(() => {
      arm(clock.nowMs() + RETRY_AFTER_FAILURE_MS);
    });
    return run;
  }

  const unwatch = options.watch?.(() => {
    runDue().catch(() => undefined);
  });

  return {
    async schedule(kind, key, payload, dueAtMs, group) {
      await store.put({ id: idOf(kind, key), kind, payload: JSON.stringify(payload), dueAtMs, ...(group !== undefined && { group }) });
      scheduledDuringRun = Math.min(scheduledDuringRun, dueAtMs);
      arm(dueAtMs);
    },
    unschedule: (kind, keys) => store.remove(keys.map((key) => idOf(kind, key))),
    clear: (kind) => store.clear(kind),
    runDue,
    stop() {
      stopped = true;
      clearTimeout(timer);
      timer = undefined;
      unwatch?.();
    },
  };
}
