// Turns of the event loop: background work resumes at the start of a turn, and the responses of a turn go out together at its end.

import timers from "node:timers";

/**
 * Node's own timers, taken when this module loads: a test that fakes timers later (vitest and
 * jest fake the global ones, vitest `node:timers` too) must still get its answers.
 */
const { setImmediate: immediate, setTimeout: soon } = timers;

/** Resolves at the start of the next turn, with the timers (at least 1 ms later when nothing else waits). */
export function turnStart(): Promise<void> {
  return new Promise((resolve) => soon(resolve, 0));
}

/**
 * Turns for large sends: each call resolves in a turn of the event loop of its own, in the order
 * of the calls, so that the requests waiting between them get every other turn. A step runs at
 * the start of its turn, with the timers, and the turn's responses go out at its end: with both
 * at the end, a small send's response waited behind a large step, and beside four sends of
 * 60,000 unknown keys at a time it was answered in 90-119 ms (p99) instead of 43-49 (33-43
 * before responses waited for the end of the turn).
 */
export function takingTurns(): () => Promise<void> {
  const waiting: (() => void)[] = [];
  const release = (): void => {
    waiting.shift()?.();
    if (waiting.length > 0) soon(release, 0);
  };
  return () =>
    new Promise((resolve) => {
      waiting.push(resolve);
      if (waiting.length === 1) soon(release, 0);
    });
}

/** Resolves at the end of the current turn, once what the event loop polled in it has run. */
export function turnEnd(): Promise<void> {
  return new Promise((resolve) => immediate(resolve));
}

/**
 * The end of the current turn of the event loop: one promise, shared by all that wait for it in
 * that turn. Responses written together wake a client that sleeps between them once per burst
 * rather than once per response, and waking a sleeping thread on another CPU is paid inside the
 * writer's `writev`: a send spent ~30 µs of its ~100 µs of CPU there. `npm run bench`, devices,
 * (d), 2026-11-27: 72 against 101 µs of server CPU per send, 1.41x the req/s.
 */
export function turnEnds(): () => Promise<void> {
  let next: Promise<void> | undefined;
  return () =>
    (next ??= new Promise((resolve) =>
      immediate(() => {
        next = undefined;
        resolve();
      }),
    ));
}
