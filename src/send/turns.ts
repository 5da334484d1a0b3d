// Turns of the event loop: large sends take one step a turn, and the responses of a turn go out together at its end.

import timers from "node:timers";

/**
 * Node's own setImmediate, taken when this module loads: a test that fakes timers later (vitest
 * and jest fake the global one, vitest `node:timers` too) must still get its answers.
 */
const { setImmediate: immediate } = timers;

/**
 * Turns for large sends: each call resolves in a turn of the event loop of its own, in the order
 * of the calls, so that the requests waiting between them get every other turn.
 */
export function takingTurns(): () => Promise<void> {
  const waiting: (() => void)[] = [];
  const release = (): void => {
    waiting.shift()?.();
    if (waiting.length > 0) immediate(release);
  };
  return () =>
    new Promise((resolve) => {
      waiting.push(resolve);
      if (waiting.length === 1) immediate(release);
    });
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
