// Waits between the bench's measurements for a condition, not a fixed time: the machine's cores idle again, a server's memory steady.

import { readFileSync } from "node:fs";
import { setInterval as every } from "node:timers/promises";
import { log } from "./knobs.mjs";
import { memoryOf } from "./servers.mjs";

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

/** Resolves at the end of the first sample after which `done` holds (at most LIMIT_MS). @param {() => boolean} done @param {string} what */
async function until(done, what) {
  const deadline = performance.now() + LIMIT_MS;
  for await (const clock of every(SAMPLE_MS, performance)) {
    if (done()) return;
    if (clock.now() >= deadline) break;
  }
  log(`(${what} not reached within ${LIMIT_MS / 1000} s; going on)`);
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
