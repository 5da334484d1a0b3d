// Runs the proof's three files RUNS times, then once as the negative control (SANDBOX_OF=worker), all in this one process
// through the runner's Node API (vitest's startVitest, jest's runCLI): a process per run cost 2.2 s of CPU for vitest and
// 1.1 s for jest, measured, against ~0.35 s a run here. Each run is one JSON line on stdout: its file order, its passed and
// failed tests, and the first line of each failure.
// Usage: node [--experimental-vm-modules] repeat-runs.mjs vitest|jest RUNS

import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const { permuted } = createRequire(import.meta.url)("./permutation.cjs");

const HERE = path.dirname(fileURLToPath(import.meta.url));
const [framework, runs] = [process.argv[2], Number(process.argv[3])];

/** vitest with the permutation of the files the run's number names, as jest's (vitest's own shuffle of seeds 1 to 10 tried 4 orders of the 6). */
async function vitestRun(seed) {
  const { BaseSequencer, startVitest } = await import("vitest/node");
  class PermutedOrder extends BaseSequencer {
    async sort(files) {
      return permuted(await super.sort(files), seed % 6, (file) => file.moduleId);
    }
  }
  const run = { order: [], passed: 0, failed: 0, failures: [] };
  const reporter = {
    onTestModuleStart: (module) => run.order.push(path.basename(module.moduleId)),
    onTestCaseResult: (testCase) => {
      const { state, errors = [] } = testCase.result();
      if (state === "passed") run.passed += 1;
      if (state === "failed") {
        run.failed += 1;
        run.failures.push(`${testCase.module.moduleId}: ${errors[0]?.message.split("\n")[0]}`);
      }
    },
  };
  await startVitest("test", [], {
    config: path.join(HERE, "vitest.config.ts"),
    watch: false,
    reporters: [reporter],
    sequence: { sequencer: PermutedOrder },
  });
  return run;
}

/** jest with the permutation of the files the run's number names (file-order.cjs). */
async function jestRun(seed) {
  const { runCLI } = (await import("jest")).default;
  process.env.FILE_ORDER = String(seed % 6);
  const { results } = await runCLI({ _: [], $0: "repeat-runs", config: path.join(HERE, "jest.config.cjs"), silent: true, watchman: false }, [HERE]);
  return {
    order: results.testResults.map((file) => path.basename(file.testFilePath)),
    passed: results.numPassedTests,
    failed: results.numFailedTests,
    failures: results.testResults.flatMap((file) =>
      file.testResults.filter((test) => test.status === "failed").map((test) => `${file.testFilePath}: ${test.failureMessages[0]?.split("\n")[0]}`),
    ),
  };
}

const runOnce = framework === "vitest" ? vitestRun : jestRun;
for (let seed = 1; seed <= runs + 1; seed += 1) {
  const control = seed > runs;
  if (control) process.env.SANDBOX_OF = "worker";
  const run = await runOnce(seed);
  process.stdout.write(`${JSON.stringify({ seed, sandbox: control ? "worker" : "file", ...run })}\n`);
}
// A failed run sets the exit code (vitest does); what counts is the lines above.
process.exitCode = 0;
