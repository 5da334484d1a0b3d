// Per file, never per worker (issue 44): three test files forced into one worker, one sendmock for the run from the
// package's global setup, each file on setupSandbox and none resetting anything itself. Run 10 times per framework (20 runs
// in all, the count) in varied file orders, every file finds its sandbox empty at its start although the file before it left messages, a fault
// rule and a clock advance behind. The control, the same files on the worker's sandbox (sandboxClient), leaks: the proof can fail.

import path from "node:path";
import { describe, it, type ExpectStatic } from "vitest";
import { ROOT, runNode } from "../support/test-runners.js";

/** Per framework, 20 runs in all: 20 each cost 17.9 s of the suite's 2 minutes in CI, and 10 each try every order of the three files. */
const RUNS = 10;
const FIXTURE = path.join(ROOT, "test/support/per-file-sandboxes");
const ALL_ORDERS_OF_THREE = 6;

/** One run of the three files, as repeat-runs.mjs prints it. */
interface Run {
  seed: number;
  sandbox: "file" | "worker";
  order: string[];
  passed: number;
  failed: number;
  failures: string[];
}

/** RUNS runs with setupSandbox, then the control run on the worker's sandbox, all in one child process through the runner's Node API. */
async function repeatedRuns(expect: ExpectStatic, framework: "vitest" | "jest"): Promise<Run[]> {
  // jest's --experimental-vm-modules: one of its three files is an ES module, the other two CommonJS.
  const nodeFlags = framework === "jest" ? ["--experimental-vm-modules"] : [];
  const { code, output } = await runNode([...nodeFlags, path.join(FIXTURE, "repeat-runs.mjs"), framework, String(RUNS)]);
  const runs = output
    .split("\n")
    .filter((line) => line.startsWith('{"seed"'))
    .map((line) => JSON.parse(line) as Run);
  expect(runs.length, output).toBe(RUNS + 1);
  expect(code, output).toBe(0);
  return runs;
}

function expectNoLeakAndAControlThatLeaks(expect: ExpectStatic, runs: Run[]): void {
  const perFile = runs.filter((run) => run.sandbox === "file");
  // Each run: both tests of each of the three files passed, the first asserting an empty sandbox.
  expect(perFile.map(({ seed, passed, failed, failures }) => ({ seed, passed, failed, failures }))).toEqual(
    perFile.map(({ seed }) => ({ seed, passed: 6, failed: 0, failures: [] })),
  );
  // Every order of the three files ran, so each file followed each of the others.
  expect(new Set(perFile.map((run) => run.order.join(" "))).size).toBe(ALL_ORDERS_OF_THREE);

  // On the worker's sandbox, the first file passes and each file after it fails both tests: it found the
  // previous file's messages, rule and clock, and its sends met the fault rule left behind.
  const [control] = runs.filter((run) => run.sandbox === "worker");
  expect(control).toMatchObject({ passed: 2, failed: 4 });
  const [, second, third] = control?.order ?? [];
  expect(control?.failures.map((failure) => path.basename(failure.slice(0, failure.indexOf(": ")))).sort()).toEqual([second, second, third, third].sort());
}

// The two frameworks' runs side by side (describe.concurrent): each is one child process on one
// core, independent of the other (a sendmock of its own from its global setup, on a port of its
// own). This file alone, 2 runs each: 6.5 s -> 4.6 s.
describe.concurrent("three files in one worker, each on setupSandbox, one sendmock per run from the package's global setup", () => {
  it(`vitest (maxWorkers 1, one thread, shared modules): ${RUNS} runs in every file order, each file finding its sandbox empty`, async ({ expect }) => {
    expectNoLeakAndAControlThatLeaks(expect, await repeatedRuns(expect, "vitest"));
  }, 90_000);

  it(`jest (maxWorkers 1, in band; CommonJS and ES module files): ${RUNS} runs in every file order, each file finding its sandbox empty`, async ({
    expect,
  }) => {
    expectNoLeakAndAControlThatLeaks(expect, await repeatedRuns(expect, "jest"));
  }, 90_000);
});
