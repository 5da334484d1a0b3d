// The message-checks section (BENCH_ONLY=message-checks): every check but spam on a 100 KB
// message, cold in fresh processes and warm, and `sendmock lint` over 100 templates (issue 45:
// under 50 ms and under 5 s).

import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { log, RUNS } from "./lib/knobs.mjs";
import { finish } from "./lib/report.mjs";
import { CLI, median, ROOT, spawnNode } from "./lib/servers.mjs";

const CHECKS_TARGET_MS = 50;
const LINT_TARGET_MS = 5000;
const LINT_TEMPLATES = 100;
const WARM_RUNS = 20;

/** Runs `node ...args` to its end: its exit code, stdout and the milliseconds it took. @param {string} name @param {string[]} args */
async function runNode(name, args) {
  const began = performance.now();
  const proc = spawnNode(name, args);
  const code = await new Promise((resolve) => proc.child.once("close", resolve));
  return { code, stdout: proc.stdout(), stderr: proc.stderrTail(), ms: performance.now() - began };
}

/** 100 templates: the shipped ones, each copied under new ids, in a temp folder. */
function lintFolder() {
  const folder = mkdtempSync(path.join(os.tmpdir(), "sendmock-bench-lint-"));
  const shipped = path.join(ROOT, "fixtures/templates");
  const sources = readdirSync(shipped).map((name) => readFileSync(path.join(shipped, name), "utf8"));
  for (let index = 0; index < LINT_TEMPLATES; index += 1) {
    writeFileSync(path.join(folder, `template-${String(index).padStart(3, "0")}.yaml`), sources[index % sources.length] ?? "");
  }
  return folder;
}

/** The section's lines, targets and report. */
export async function measureMessageChecks() {
  /** @type {{ bytes: number, status: string, importMs: number, firstMs: number, warmMs: number[] }[]} */
  const samples = [];
  for (let run = 1; run <= RUNS; run += 1) {
    log(`message checks: cold sample ${run} of ${RUNS}`);
    const sample = await runNode("message-checks sample", [path.join(ROOT, "test/bench/message-checks-sample.mjs"), String(WARM_RUNS)]);
    if (sample.code !== 0) throw new Error(`the message-checks sample exited ${String(sample.code)}: ${sample.stderr}`);
    samples.push(JSON.parse(sample.stdout));
  }
  const folder = lintFolder();
  /** @type {number[]} */
  const lintMs = [];
  try {
    for (let run = 1; run <= RUNS; run += 1) {
      log(`sendmock lint of ${LINT_TEMPLATES} templates: run ${run} of ${RUNS}`);
      const lint = await runNode("sendmock lint", [CLI, "lint", "--templates", folder]);
      if (lint.code !== 0 || !lint.stdout.includes(`${LINT_TEMPLATES} templates linted`))
        throw new Error(`sendmock lint exited ${String(lint.code)}: ${lint.stderr}`);
      lintMs.push(lint.ms);
    }
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
  const warm = samples.flatMap((sample) => sample.warmMs);
  const warmMedian = median(warm);
  const kb = ((samples[0]?.bytes ?? 0) / 1024).toFixed(1);
  const figures = (/** @type {number[]} */ values) => `[${values.map((value) => value.toFixed(1)).join(", ")}]`;
  const lines = [
    `message checks (every check but spam) on a ${kb} KB message, ${RUNS} fresh processes, ${WARM_RUNS} warm runs each`,
    `import of the checks' modules (dist/, file by file)                         ${median(samples.map((sample) => sample.importMs)).toFixed(1)} ms  ${figures(samples.map((sample) => sample.importMs))}`,
    `first check in a process (loads htmlparser2, PostCSS and the caniemail data) ${median(samples.map((sample) => sample.firstMs)).toFixed(1)} ms  ${figures(samples.map((sample) => sample.firstMs))}`,
    `a check once loaded: median, slowest of ${warm.length}                                  ${warmMedian.toFixed(1)} ms, ${Math.max(...warm).toFixed(1)} ms`,
    `sendmock lint of ${LINT_TEMPLATES} templates: spawn -> exit                             ${median(lintMs).toFixed(0)} ms  ${figures(lintMs)}`,
  ];
  const targets = [
    {
      name: `message checks (100 KB) < ${CHECKS_TARGET_MS} ms`,
      pass: warmMedian < CHECKS_TARGET_MS,
      detail: `${warmMedian.toFixed(1)} ms, the median of ${warm.length} runs once loaded`,
    },
    {
      name: `lint of ${LINT_TEMPLATES} templates < ${LINT_TARGET_MS / 1000} s`,
      pass: median(lintMs) < LINT_TARGET_MS,
      detail: `${median(lintMs).toFixed(0)} ms, the median of ${RUNS} runs`,
    },
  ];
  return { lines, targets, report: { messageChecks: { samples, lintMs } } };
}

/** BENCH_ONLY=message-checks. */
export async function messageChecksOnly() {
  const began = performance.now();
  log(`message checks only; node ${process.version}, ${os.cpus().length} cores`);
  const { lines, targets, report } = await measureMessageChecks();
  finish(["", ...lines], targets, report, began);
}
