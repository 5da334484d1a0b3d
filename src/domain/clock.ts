// The mock's one clock: real time plus an offset that only moves forward (POST /_mock/clock).
// Lifecycle steps, rate-limit refill and webhook retries read it; latency, timeouts and wait_ms
// stay on real time.

import { DomainFailure } from "./failure.js";

/** How far the mock's clock is ahead of the real one; shared by replicas with the Redis store. */
export interface ClockOffsetStore {
  /** Read on every request: synchronous, from a local copy kept fresh. */
  current(): number;
  /**
   * Moves the offset forward by `ms`; resolves with the new offset, or with undefined, the offset
   * left as it was, when the move would take it past `maxOffsetMs` (checked in the same step as
   * the move, so that replicas advancing at once cannot pass it together).
   */
  advance(ms: number, maxOffsetMs?: number): Promise<number | undefined>;
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

/** The furthest ahead of the clock anything is scheduled: a lifecycle step, a webhook retry (a day). */
export const MAX_SCHEDULED_AHEAD_MS = 86_400_000;

/**
 * The latest time the clock may show. The inspection API writes times as RFC 3339 dates, whose
 * years end at 9999: 7,979 advances of a year took it past that, and from then on every send and
 * every GET /_mock/clock responded with 500. A day is kept before the end for what is scheduled ahead
 * of the clock and shown before it happens (a webhook retry's `next_attempt_at`).
 */
export const LATEST_CLOCK_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999) - MAX_SCHEDULED_AHEAD_MS;

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
    advance(ms, maxOffsetMs = Number.POSITIVE_INFINITY) {
      if (offsetMs + ms > maxOffsetMs) return Promise.resolve(undefined);
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
   * Throws an `invalid_request` DomainFailure for any other `ms`, and for one that would take the
   * clock past LATEST_CLOCK_MS.
   */
  advance(ms: number): Promise<Date>;
  /**
   * Throws the `invalid_request` DomainFailure `advance(ms)` would throw, moving nothing: an advance of
   * every sandbox's clock asks each first, and moves none when one cannot move.
   */
  checkAdvance(ms: number): void;
}

/** Throws an `invalid_request` DomainFailure unless `ms` is an advance any clock takes: a whole number from 0 to a year. */
export function checkAdvanceRange(ms: number): void {
  if (!Number.isSafeInteger(ms) || ms < 0 || ms > MAX_ADVANCE_MS) {
    throw new DomainFailure("invalid_request", `advance_ms must be a whole number of milliseconds from 0 to ${MAX_ADVANCE_MS} (a year), got ${String(ms)}`);
  }
}

export function createClockControl(parts: { clock: Clock; offset: ClockOffsetStore; runDue: () => Promise<void> }): ClockControl {
  const { clock, offset } = parts;
  /** The furthest the offset may go now: real time moves on, so it shrinks. */
  const maxOffsetMs = (): number => LATEST_CLOCK_MS - (clock.nowMs() - clock.offsetMs());
  const pastTheEnd = (ms: number, maxMs: number): DomainFailure => {
    const leftMs = Math.max(0, Math.floor(maxMs - offset.current()));
    return new DomainFailure(
      "invalid_request",
      `advance_ms ${ms} would move the clock past ${new Date(LATEST_CLOCK_MS).toISOString()}, the latest time it can show (RFC 3339 years end at 9999, and a day is kept for what is scheduled ahead of it): it can be advanced at most ${leftMs} ms more`,
    );
  };
  return {
    now: () => clock.now(),
    offsetMs: () => clock.offsetMs(),
    async advance(ms) {
      checkAdvanceRange(ms);
      const maxMs = maxOffsetMs();
      if ((await offset.advance(ms, maxMs)) === undefined) throw pastTheEnd(ms, maxMs);
      await parts.runDue();
      return clock.now();
    },
    checkAdvance(ms) {
      checkAdvanceRange(ms);
      const maxMs = maxOffsetMs();
      if (offset.current() + ms > maxMs) throw pastTheEnd(ms, maxMs);
    },
  };
}
