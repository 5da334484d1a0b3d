// The search section (BENCH_ONLY=search): q over 10k captured messages, paired with the
// validator baseline.

import os from "node:os";
import { CONNECTIONS, DURATION, LIST_FILL, log, RUNS, SEND_HEADERS, VALID_BODY, WARMUP } from "./lib/knobs.mjs";
import { fill, listMessages, measure } from "./lib/load.mjs";
import { finish, int, table } from "./lib/report.mjs";
import { configWithCapacity, makeTempDir, sendmock } from "./lib/sendmock.mjs";
import { median } from "./lib/servers.mjs";
import { benchScenarios } from "./scenarios.mjs";
import { untilQuiet } from "./lib/settle.mjs";

/** @typedef {import("./lib/load.mjs").Scenario} Scenario */
/** @typedef {import("./lib/load.mjs").Outcome} Outcome */
/** @typedef {import("./lib/sendmock.mjs").BenchRun} BenchRun */

/** GET /_mock/messages?q= over the memory store's 10k messages must respond at least this often (issue 18, item 1). */
const SEARCH_MIN_RPS = 500;
/** A token sent in one message's data only, so that a search that scanned would read all 10k messages' text to find one. */
const SEARCH_TOKEN = "zanzibar7f3k";

/**
 * BENCH_ONLY=search: `q` over 10k captured messages on the memory store, a token that one of
 * them holds, limit 50, each run paired with one of the validator baseline. The word index
 * offers the one message filed under a word holding the token; a scan would read all 10k.
 * @param {BenchRun} bench
 */
export async function searchOnly(bench) {
  makeTempDir(bench);
  const began = performance.now();
  /** @type {Scenario} */
  const scenario = {
    id: "search_10k",
    label: "sendmock GET /_mock/messages?q= (10k captured, one match, limit 50)",
    start: () => sendmock(["--quiet", "--config", configWithCapacity(bench.tempDir, 2 * LIST_FILL)]),
    prepare: async (url) => {
      await fill(url, LIST_FILL - 1);
      const body = JSON.stringify({ ...JSON.parse(VALID_BODY), data: { ...JSON.parse(VALID_BODY).data, company: `Looms of ${SEARCH_TOKEN}` } });
      const sent = await fetch(`${url}/send`, { method: "POST", headers: SEND_HEADERS, body });
      if (sent.status !== 200) throw new Error(`the searched message was answered ${sent.status}`);
      const { total } = await listMessages(url, `q=${SEARCH_TOKEN}&limit=1`);
      if (total !== 1) throw new Error(`expected the token in 1 message before the search run, found ${total}`);
    },
    load: { method: "GET", path: `/_mock/messages?q=${SEARCH_TOKEN}&limit=50`, expectStatus: 200 },
  };
  const baseline = benchScenarios(bench).find((candidate) => candidate.id === "baseline_validator");
  if (baseline === undefined) throw new Error("the validator baseline scenario is missing");
  log(
    `search only: ${RUNS} round(s) of the search and the validator baseline, ${DURATION} s each (+${WARMUP} s warm-up), ${CONNECTIONS} connections; node ${process.version}, ${os.cpus().length} cores`,
  );
  /** @type {Outcome[]} */
  const runs = [];
  /** @type {Outcome[]} */
  const baselineRuns = [];
  // Each search run is paired with a baseline run minutes apart at most: on a shared machine the ratio moves less than either figure.
  for (let run = 1; run <= RUNS; run += 1) {
    runs.push(await measure(scenario, run));
    await untilQuiet();
    baselineRuns.push(await measure(baseline, run));
    await untilQuiet();
  }
  const rps = median(runs.map((outcome) => outcome.rps));
  const cpu = median(runs.map((outcome) => outcome.serverCpuUsPerRequest));
  const baselineRps = median(baselineRuns.map((outcome) => outcome.rps));
  const ratio = median(runs.map((outcome, index) => outcome.rps / (baselineRuns[index]?.rps ?? NaN)));
  const rows = [
    ["scenario", `req/s (median of ${RUNS})`, "server CPU µs/request", "p99 ms (median)", "vs validator baseline (median of the rounds' ratios)"],
    [scenario.label, int(rps), int(cpu), String(median(runs.map((outcome) => outcome.p99))), `${ratio.toFixed(2)}x`],
    [
      baseline.label,
      int(baselineRps),
      int(median(baselineRuns.map((outcome) => outcome.serverCpuUsPerRequest))),
      String(median(baselineRuns.map((outcome) => outcome.p99))),
      "1.00x",
    ],
  ];
  const targets = [{ name: `search 10k >= ${SEARCH_MIN_RPS} req/s`, pass: rps >= SEARCH_MIN_RPS, detail: `${int(rps)} req/s, the median of ${RUNS} runs` }];
  finish(["", table(rows)], targets, { search: { rps, serverCpuUsPerRequest: cpu, baselineRps, vsValidatorBaseline: ratio } }, began);
}
