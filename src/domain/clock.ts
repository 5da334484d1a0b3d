// The mock's one clock: real time plus an offset that only moves forward (POST /_mock/clock).
// Lifecycle steps, rate-limit refill and webhook retries read it; latency, timeouts and wait_ms
// stay on real time.

import { ApiError } from "../errors.js";

/** How far the mock's clock is ahead of the real one; shared by replicas with the Redis store. */
export interface ClockOffsetStore {
  /** Read on every request: synchronous, from a local copy kept fresh. */
  current(): number;
  /** Moves the offset forward by `ms`; resolves with the new offset. */
  advance(ms: number): Promise<number>;
  /** Back to real time. */
  reset(): Promise<void>;
}

export interface Clock {
  nowMs(): number;
  now(): Date;
  offsetMs(): number;
}

/** The largest single advance: a year, far past any schedule a test sets up, and a safe integer however often it is repeated in a run. */
export const MAX_ADVANCE_MS = 365 * 24 * 3600 * 1000;

export function createClock(offset: ClockOffsetStore, realNowMs: () => number = Date.now): Clock {
  const nowMs = (): number => realNowMs() + offset.current();
  return {
    nowMs,
    now: () => new Date(nowMs()),
    offsetMs: () => offset.current(),
  };
}

/** A clock offset kept in this process: one mock's own. */
export function createLocalClockOffset(): ClockOffsetStore {
  let offsetMs = 0;
  return {
    current: () => offsetMs,
    advance(ms) {
      offsetMs += ms;
      return Promise.resolve(offsetMs);
    },
    reset() {
      offsetMs = 0;
      return Promise.resolve();
    },
  };
}

/** What tests and the admin API may do with the clock: `mock.clock`. */
export interface ClockControl {
  now(): Date;
  offsetMs(): number;
  /**
   * Moves the clock forward by `ms` (a whole number, 0 to a year) and runs whatever falls due,
   * in time order, before it resolves with the new time; webhook attempts that fall due are
   * waited for at most `webhook_timeout_ms` (one still waiting then ends in the background).
   * Throws an `invalid_request` ApiError for any other `ms`.
   */
  advance(ms: number): Promise<Date>;
}

export function createClockControl(parts: { clock: Clock; offset: ClockOffsetStore; runDue: () => Promise<void> }): ClockControl {
  const { clock, offset } = parts;
  return {
    now: () => clock.now(),
    offsetMs: () => clock.offsetMs(),
    async advance(ms) {
      if (!Number.isSafeInteger(ms) || ms < 0 || ms > MAX_ADVANCE_MS) {
        throw new ApiError("invalid_request", `advance_ms must be a whole number of milliseconds from 0 to ${MAX_ADVANCE_MS} (a year), got ${String(ms)}`);
      }
      await offset.advance(ms);
      await parts.runDue();
      return clock.now();
    },
  };
}
