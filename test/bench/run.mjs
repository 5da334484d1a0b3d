// `npm run bench`: throughput of sendmock against its peers (bare node:http, express +
// express-openapi-validator, Prism, WireMock), its startup time, its memory, a soak (its heap
// under sustained load) and what each speed device earns, each server started fresh in its own
// child process. Prints a table and a TARGETS block, and writes the same to
// test-results/bench.json. Knobs: BENCH_DURATION (seconds per run, default 10), BENCH_RUNS
// (runs per scenario, default 3), BENCH_WARMUP (seconds of discarded load before each run,
// default 1), BENCH_SOAK_SECONDS (length of the soak, default 60, 0 skips it), BENCH_ONLY=soak
// (the soak alone), BENCH_ONLY=startup, abuse, log, webhooks, search, peers, stores, sandboxes, devices, memory or message-checks (that
// section alone), BENCH_STRICT=1 (exit 2 when a target is missed or could not be judged), BENCH_PEERS_DIR
// (where Prism and WireMock are installed, see lib/peers.mjs); the abuse section's own knobs are in abuse.mjs.
// The sections are modules beside this file (throughput.mjs with scenarios.mjs, memory.mjs,
// soak.mjs, request-log.mjs, webhooks.mjs, search.mjs, startup.mjs, devices.mjs, abuse.mjs,
// message-checks.mjs with message-checks-sample.mjs), on
// what lib/ shares: knobs.mjs (these knobs), load.mjs, report.mjs, sendmock.mjs, servers.mjs, peers.mjs.

import { rmSync } from "node:fs";
import os from "node:os";
import { measureAbuse } from "./abuse.mjs";
import { deviceLines, measureDevices } from "./devices.mjs";
import { CONNECTIONS, DURATION, log, onlySection, RUNS, SEND_HEADERS, SOAK_SECONDS, VALID_BODY, WARMUP } from "./lib/knobs.mjs";
import { fill, listMessages, measure, roundRobin } from "./lib/load.mjs";
import { finish, int, mb } from "./lib/report.mjs";
import { configWithCapacity, makeTempDir, startBenchRedis } from "./lib/sendmock.mjs";
import { killAll } from "./lib/servers.mjs";
import { HEAP_CAP_FLAG, MEMORY_LARGE, measureMemory, memoryLines, memoryOnly, memoryTarget } from "./memory.mjs";
import { measureMessageChecks, messageChecksOnly } from "./message-checks.mjs";
import { logLineCpuUs, logOnly, logSection } from "./request-log.mjs";
import { benchScenarios, peersAndResponses, responseLines } from "./scenarios.mjs";
import { searchOnly } from "./search.mjs";
import { measureSoak, soakLines, soakOnly, soakTargets } from "./soak.mjs";
import { measureStartupSection, startupLines, startupTargets } from "./startup.mjs";
import { peersOnly, sandboxesOnly, storesOnly, throughputSection } from "./throughput.mjs";
import { webhooksOnly } from "./webhooks.mjs";
import { untilQuiet } from "./lib/settle.mjs";

/** @typedef {import("./lib/sendmock.mjs").BenchRun} BenchRun */

const ONLY = onlySection("BENCH_ONLY", [
  "soak",
  "startup",
  "abuse",
  "log",
  "webhooks",
  "search",
  "peers",
  "stores",
  "sandboxes",
  "devices",
  "memory",
  "message-checks",
]);

/** The devices section's own arguments: the bench's way to measure, lent to devices.mjs. */
const deviceHelpers = (/** @type {BenchRun} */ bench) => ({
  runs: RUNS,
  log,
  measure,
  fill,
  listMessages,
  configWithCapacity: (/** @type {number} */ capacity) => configWithCapacity(bench.tempDir, capacity),
  validBody: VALID_BODY,
  sendHeaders: SEND_HEADERS,
  tempDir: bench.tempDir,
});

/** BENCH_ONLY=devices: each speed device with it and without. @param {BenchRun} bench */
async function devicesOnly(bench) {
  makeTempDir(bench);
  const began = performance.now();
  log(`devices only: ${RUNS} run(s) of each load, ${DURATION} s each (+${WARMUP} s warm-up); node ${process.version}, ${os.cpus().length} cores`);
  const devices = await measureDevices(deviceHelpers(bench));
  finish(["", ...deviceLines(devices, RUNS)], [], { devices }, began);
}

async function startupOnly() {
  const began = performance.now();
  log(`startup only; node ${process.version}, ${os.cpus().length} cores`);
  const startup = await measureStartupSection(log);
  finish(["", ...startupLines(startup)], startupTargets(startup), { startup }, began);
}

/** Every section, and the targets of all. @param {BenchRun} bench */
async function main(bench) {
  makeTempDir(bench);
  const began = performance.now();
  bench.redis = await startBenchRedis();
  const { peers, responses } = await peersAndResponses(bench);
  // The redis rows stay in the list without a redis-server, so that their targets say why they were not judged.
  const scenarioList = [...benchScenarios(bench), ...peers].map((scenario) =>
    bench.redis === undefined && scenario.redis === true
      ? { ...scenario, notMeasured: "no redis-server on the PATH (apt-get install redis-server)" }
      : scenario,
  );
  const scenariosToRun = scenarioList.filter((scenario) => scenario.notMeasured === undefined);
  log(
    `${RUNS} run(s) x ${scenariosToRun.length} scenarios x ${DURATION} s (+${WARMUP} s warm-up), ${CONNECTIONS} connections; node ${process.version}, ${os.cpus().length} cores`,
  );

  const outcomes = await roundRobin(scenariosToRun);
  log("startup");
  const startup = await measureStartupSection(log);
  await untilQuiet();
  log("memory");
  const memory = await measureMemory(bench.tempDir);
  await untilQuiet();
  log(`memory with node ${HEAP_CAP_FLAG}`);
  // A capped heap that runs out is a finding to print, not a reason to lose the rest of the run.
  const memoryHeapCapped = await measureMemory(bench.tempDir, [HEAP_CAP_FLAG]).catch((/** @type {unknown} */ error) => {
    log(`memory with node ${HEAP_CAP_FLAG} failed: ${error instanceof Error ? error.message : String(error)}`);
    return { failed: error instanceof Error ? error.message.split("\n")[0] : String(error) };
  });
  let soak = null;
  if (SOAK_SECONDS > 0) {
    await untilQuiet();
    log(`soak (${SOAK_SECONDS} s)`);
    soak = await measureSoak();
  }
  await untilQuiet();
  log("devices");
  const devices = await measureDevices(deviceHelpers(bench));

  bench.redis?.stop();
  const throughput = throughputSection(scenarioList, outcomes);
  const list = throughput.byId.list_10k;
  const targets = [
    ...throughput.targets,
    {
      name: "inspection list (10k) >= 2000 req/s",
      pass: (list?.rps ?? 0) >= 2000,
      detail: `${int(list?.rps ?? 0)} req/s vs 2,000`,
    },
    ...startupTargets(startup),
    memoryTarget(memory),
  ];

  const out = [
    "",
    `sendmock bench: ${RUNS} run(s) per scenario, ${DURATION} s each (+${WARMUP} s warm-up), ${CONNECTIONS} connections, pipelining 1; node ${process.version}, ${os.cpus().length} cores`,
    `POST /send body: ${Buffer.byteLength(VALID_BODY)} bytes (invalid: to "not-an-address")`,
    "",
    ...throughput.lines,
    "",
    ...responseLines(responses),
    "",
    ...startupLines(startup),
    "",
    ...memoryLines(memory),
    "at100k" in memoryHeapCapped
      ? `memory at ${int(memoryHeapCapped.at100k.messages)} messages with node ${HEAP_CAP_FLAG}: RSS ${mb(memoryHeapCapped.at100k.rssBytes)} (peak ${mb(memoryHeapCapped.at100k.peakRssBytes)})`
      : `memory at ${int(MEMORY_LARGE)} messages with node ${HEAP_CAP_FLAG}: FAILED (${memoryHeapCapped.failed})`,
    ...(soak ? ["", ...soakLines(soak)] : []),
    "(MB = 2^20 bytes)",
    "",
    ...deviceLines(devices, RUNS),
  ];
  if (soak) targets.push(...soakTargets(soak));

  const report = {
    settings: {
      durationS: DURATION,
      runs: RUNS,
      warmupS: WARMUP,
      connections: CONNECTIONS,
      pipelining: 1,
      bodyBytes: Buffer.byteLength(VALID_BODY),
      soakSeconds: SOAK_SECONDS,
    },
    ...throughput.report,
    responses,
    startup,
    memory,
    memoryHeapCapped: { nodeFlag: HEAP_CAP_FLAG, ...memoryHeapCapped },
    soak,
    devices,
  };
  const logCost = logSection(outcomes, { text: await logLineCpuUs("text"), json: await logLineCpuUs("json") });
  out.push("", ...logCost.lines);
  targets.push(...logCost.targets);
  Object.assign(report, logCost.report);
  const abuse = await measureAbuse();
  out.push("", ...abuse.lines);
  targets.push(...abuse.targets);
  Object.assign(report, abuse.report);
  await untilQuiet();
  const checks = await measureMessageChecks();
  out.push("", ...checks.lines);
  targets.push(...checks.targets);
  Object.assign(report, checks.report);
  finish(out, targets, report, began);
}

/** Runs BENCH_ONLY's section, or everything, and removes what it made however it ends. */
async function runBench() {
  /** @type {BenchRun} */
  const bench = { tempDir: "", redis: undefined };
  process.on("exit", () => {
    killAll();
    bench.redis?.stop();
  });
  for (const signal of /** @type {const} */ (["SIGINT", "SIGTERM"])) {
    process.once(signal, () => {
      log(`${signal}: stopping the servers`);
      killAll();
      bench.redis?.stop();
      process.exit(130);
    });
  }

  try {
    if (ONLY === "abuse") {
      const abuse = await measureAbuse();
      finish(["", ...abuse.lines], abuse.targets, abuse.report, 0);
    } else
      await (ONLY === "soak"
        ? soakOnly()
        : ONLY === "startup"
          ? startupOnly()
          : ONLY === "log"
            ? logOnly(bench)
            : ONLY === "webhooks"
              ? webhooksOnly(bench)
              : ONLY === "search"
                ? searchOnly(bench)
                : ONLY === "peers"
                  ? peersOnly(bench)
                  : ONLY === "stores"
                    ? storesOnly(bench)
                    : ONLY === "sandboxes"
                      ? sandboxesOnly(bench)
                      : ONLY === "devices"
                        ? devicesOnly(bench)
                        : ONLY === "memory"
                          ? memoryOnly(bench)
                          : ONLY === "message-checks"
                            ? messageChecksOnly()
                            : main(bench));
  } catch (error) {
    process.stderr.write(`bench failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  } finally {
    killAll();
    bench.redis?.stop();
    if (bench.tempDir) rmSync(bench.tempDir, { recursive: true, force: true });
  }
}

await runBench();
