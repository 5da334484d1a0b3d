// Waits between the bench's measurements for a condition, not a fixed time: the machine's cores idle again, a server's memory steady.

import { readFileSync } from "node:fs";
import { setInterval as every } from "node:timers/promises";
import { log } from "./knobs.mjs";
import { cpuMsOf, memoryOf } from "./servers.mjs";

/** One sample: an idle share and a change of RSS are measured over a span of time, this one. */
const SAMPLE_MS = 100;
/** The longest wait: on a machine shared with other work quiet may never come, and the run goes on saying so. */
const LIMIT_MS = 5000;
/** The idle share of all cores over one sample that counts as quiet: the last run's server and load generator have stopped. */
const QUIET_IDLE = 0.8;
/** Two readings of a server's RSS one sample apart within this: nothing is still being allocated or given back. */
const STEADY_BYTES = 1024 * 1024;

/** The machine's idle and total CPU time so far, from the first line of /proc/stat. */
function cpuTimes() {
  const fields = (readFileSync("/proc/stat", "utf8").split("\n")[0] ?? "").trim().split(/\s+/).slice(1).map(Number);
  return { idle: (fields[3] ?? 0) + (fields[4] ?? 0), total: fields.reduce((sum, value) => sum + value, 0) };
}

/**
 * Resolves at the end of the first sample after which `done` holds (at most `limitMs`), with
 * whether it held. @param {() => boolean} done @param {string} what
 */
async function until(done, what, limitMs = LIMIT_MS) {
  const deadline = performance.now() + limitMs;
  for await (const clock of every(SAMPLE_MS, performance)) {
    if (done()) return true;
    if (clock.now() >= deadline) break;
  }
  log(`(${what} not reached within ${limitMs / 1000} s; going on)`);
  return false;
}

/** Resolves once the cores were at least 80% idle over a sample (at most 5 s). */
export function untilQuiet() {
  let before = cpuTimes();
  return until(() => {
    const now = cpuTimes();
    const idle = (now.idle - before.idle) / Math.max(1, now.total - before.total);
    before = now;
    return idle >= QUIET_IDLE;
  }, "quiet cores");
}

/** Resolves once the RSS of process `pid` stayed within 1 MB over a sample (at most 5 s). @param {number} pid */
export function untilSteady(pid) {
  let before = memoryOf(pid).rss;
  return until(() => {
    const now = memoryOf(pid).rss;
    const steady = Math.abs(now - before) < STEADY_BYTES;
    before = now;
    return steady;
  }, `a steady RSS of ${pid}`);
}

/** A server at most this busy (CPU time over wall time, of one core) for IDLE_SPAN_MS has finished what it had left. */
const IDLE_SHARE = 0.05;
const IDLE_SPAN_MS = 500;
/** The longest wait for a server to idle: past it the figure says "still busy". */
const IDLE_LIMIT_MS = 60_000;

/**
 * Waits for process `pid` to finish the work a load left it (lifecycle steps falling due after
 * the last send): at least `atLeastMs`, then until it used under 5% of a core over 500 ms, at most
 * 60 s. Returns how long it stayed busy from the call (up to the idle span) and the CPU it used.
 * @param {number} pid @param {number} atLeastMs
 * @returns {Promise<{ ms: number, cpuMs: number, finished: boolean }>}
 */
export async function untilIdle(pid, atLeastMs) {
  const started = performance.now();
  const cpuAtStart = cpuMsOf(pid);
  // The samples of the last IDLE_SPAN_MS, oldest first.
  const span = [{ at: started, cpuMs: cpuAtStart }];
  const finished = await until(
    () => {
      const last = { at: performance.now(), cpuMs: cpuMsOf(pid) };
      span.push(last);
      while (span.length > 2 && last.at - span[1].at >= IDLE_SPAN_MS) span.shift();
      const first = span[0];
      const idle = last.at - first.at >= IDLE_SPAN_MS && (last.cpuMs - first.cpuMs) / (last.at - first.at) < IDLE_SHARE;
      return idle && last.at - started >= atLeastMs;
    },
    `an idle server (pid ${pid})`,
    IDLE_LIMIT_MS,
  );
  const last = span[span.length - 1];
  // Busy until the idle span began; still busy at the limit, until then.
  return { ms: (finished ? span[0].at : last.at) - started, cpuMs: last.cpuMs - cpuAtStart, finished };
}
