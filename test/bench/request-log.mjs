// The log section: what the request log (text and JSON) costs POST /send against --quiet, and
// the section BENCH_ONLY=log.

import os from "node:os";
import path from "node:path";
import { CONNECTIONS, DURATION, log, RUNS, WARMUP } from "./lib/knobs.mjs";
import { roundRobin } from "./lib/load.mjs";
import { finish, int, percent, table } from "./lib/report.mjs";
import { median, ROOT, spawnNode } from "./lib/servers.mjs";
import { benchScenarios } from "./scenarios.mjs";

/** @typedef {import("./lib/load.mjs").Outcome} Outcome */
/** @typedef {import("./lib/sendmock.mjs").BenchRun} BenchRun */

// The request log (a line per /send on stdout, which the bench reads as a terminal would) may
// cost at most this share of POST /send throughput, against the same server with --quiet.
const LOG_MAX_COST_SHARE = 0.05;

/** The scenarios of the log section: the default text log, the JSON log, and --quiet to compare them with. */
export const LOG_SCENARIOS = ["send_valid", "send_valid_log_json", "send_valid_quiet"];

/**
 * What the request log costs, against the same send with --quiet: the median req/s and the
 * server's CPU time per send of the runs, and the CPU of one line measured alone as a share of a
 * quiet send's. That share is what the target judges: on the shared 2-core machine one run's
 * req/s moved by 2x, and its CPU per send by 1.5x, with the other work there; one line's CPU on
 * its own moved by a few percent.
 * @param {Map<string, Outcome[]>} outcomes
 * @param {{ text: number, json: number }} lineCpuUs CPU per log line, measured alone
 */
export function logSection(outcomes, lineCpuUs) {
  const quiet = outcomes.get("send_valid_quiet") ?? [];
  const quietRps = median(quiet.map((o) => o.rps));
  const quietCpu = median(quiet.map((o) => o.serverCpuUsPerRequest ?? NaN));
  const rows = [
    ["request log", `req/s (median of ${quiet.length})`, "vs --quiet", "server CPU µs/send", "vs --quiet", "CPU µs/line alone", "share of a quiet send"],
  ];
  const targets = [];
  const report = {};
  for (const [id, name, format] of /** @type {const} */ ([
    ["send_valid", "text (default)", "text"],
    ["send_valid_log_json", "json", "json"],
  ])) {
    const runs = outcomes.get(id) ?? [];
    const rps = median(runs.map((o) => o.rps));
    const cpu = median(runs.map((o) => o.serverCpuUsPerRequest ?? NaN));
    const lineShare = lineCpuUs[format] / quietCpu;
    rows.push([
      name,
      int(rps),
      `${(rps / quietRps).toFixed(3)}x`,
      cpu.toFixed(0),
      `${(cpu / quietCpu).toFixed(3)}x`,
      lineCpuUs[format].toFixed(1),
      percent(lineShare),
    ]);
    targets.push({
      name: `log ${format} costs <= ${percent(LOG_MAX_COST_SHARE)} of a send`,
      pass: lineShare <= LOG_MAX_COST_SHARE,
      detail: `a line ${lineCpuUs[format].toFixed(1)} µs of CPU vs ${quietCpu.toFixed(0)} µs per send with --quiet: ${percent(lineShare)} (in the runs: req/s ${(rps / quietRps).toFixed(3)}x, CPU per send ${(cpu / quietCpu).toFixed(3)}x)`,
    });
    Object.assign(report, {
      [id]: { rps, vsQuietRps: rps / quietRps, cpuUsPerSend: cpu, vsQuietCpu: cpu / quietCpu, lineCpuUs: lineCpuUs[format], lineShareOfQuietSend: lineShare },
    });
  }
  rows.push(["none (--quiet)", int(quietRps), "1.000x", quietCpu.toFixed(0), "1.000x", "", ""]);
  return {
    lines: ["request log cost on POST /send (valid), round-robin with --quiet", table(rows)],
    targets,
    report: { log: { quietRps, quietCpuUsPerSend: quietCpu, ...report } },
  };
}

/**
 * CPU per log line, from test/bench/log-line.mjs in a child of its own: the median of 3 children.
 * @param {"text" | "json"} format
 * @returns {Promise<number>} microseconds
 */
export async function logLineCpuUs(format) {
  const samples = [];
  for (let round = 0; round < 3; round += 1) {
    const child = spawnNode(`log-line ${format}`, [path.join(ROOT, "test/bench/log-line.mjs"), format]);
    // "close", not "exit": the result line may still be in the stderr pipe at exit.
    const code = await new Promise((resolve) => child.child.once("close", resolve));
    const result = /\{.*"cpuUsPerLine".*\}/.exec(child.stderrTail());
    if (code !== 0 || !result) throw new Error(`test/bench/log-line.mjs ${format} failed (exit ${String(code)}): ${child.stderrTail()}`);
    samples.push(/** @type {{ cpuUsPerLine: number }} */ (JSON.parse(result[0])).cpuUsPerLine);
  }
  return median(samples);
}

/** BENCH_ONLY=log: the valid send with the text log, the JSON log and --quiet, round-robin. @param {BenchRun} bench */
export async function logOnly(bench) {
  const began = performance.now();
  const scenarios = benchScenarios(bench).filter((scenario) => LOG_SCENARIOS.includes(scenario.id));
  log(
    `log only: ${RUNS} run(s) x ${scenarios.length} scenarios x ${DURATION} s (+${WARMUP} s warm-up), ${CONNECTIONS} connections; node ${process.version}, ${os.cpus().length} cores`,
  );
  const outcomes = await roundRobin(scenarios);
  const section = logSection(outcomes, { text: await logLineCpuUs("text"), json: await logLineCpuUs("json") });
  finish(["", ...section.lines], section.targets, section.report, began);
}
