// The throughput section: each row's median req/s beside the fastest peer's and bare node:http's,
// the targets judged on them, and the sections BENCH_ONLY=peers, stores and sandboxes.

import os from "node:os";
import { CONNECTIONS, DURATION, LIFECYCLE_SPAN_MS, log, RUNS, VALID_BODY, WARMUP } from "./lib/knobs.mjs";
import { roundRobin } from "./lib/load.mjs";
import { finish, int, table } from "./lib/report.mjs";
import { makeTempDir, startBenchRedis } from "./lib/sendmock.mjs";
import { median } from "./lib/servers.mjs";
import { benchScenarios, PEER_SECTION_IDS, peersAndResponses, responseLines, STORE_SECTION_IDS } from "./scenarios.mjs";

/** @typedef {import("./lib/load.mjs").Scenario} Scenario */
/** @typedef {import("./lib/load.mjs").Outcome} Outcome */
/** @typedef {import("./lib/sendmock.mjs").BenchRun} BenchRun */

// Issue 30's targets: sendmock's valid send and its 422 each at least this many times the
// fastest peer (Prism, WireMock, express + validator) on the same body, and this share of bare
// node:http; the Redis store at least this share of the memory store.
const PEER_MIN_RATIO = 2;
const NODE_HTTP_MIN_RATIO = 0.2;
const REDIS_MIN_RATIO = 0.5;
/** Issue 32's target: POST /send with X-Sendmock-Sandbox within 5% of without. */
const SANDBOX_MIN_RATIO = 0.95;

/**
 * @param {Scenario} scenario
 * @param {Outcome[]} runs
 */
function summarize(scenario, runs) {
  const sum = (/** @type {(o: Outcome) => number} */ pick) => runs.reduce((total, outcome) => total + pick(outcome), 0);
  const expectedNon2xx = scenario.load.expectStatus >= 300 ? sum((o) => o.expected) : 0;
  return {
    id: scenario.id,
    label: scenario.label,
    request: `${scenario.load.method} ${scenario.load.path}`,
    expectStatus: scenario.load.expectStatus,
    rps: median(runs.map((o) => o.rps)),
    p50Ms: median(runs.map((o) => o.p50)),
    p99Ms: median(runs.map((o) => o.p99)),
    requests: sum((o) => o.requests),
    non2xx: sum((o) => o.non2xx),
    expectedNon2xx,
    unexpectedStatuses: sum((o) => o.unexpected),
    errors: sum((o) => o.errors),
    timeouts: sum((o) => o.timeouts),
    afterLoad: afterLoadOf(runs),
    runs,
  };
}

/**
 * The medians of what the runs left for after the load (see load.mjs), or undefined for a
 * scenario that leaves nothing; `finished` false when a run was still busy at the limit.
 * @param {Outcome[]} runs
 */
function afterLoadOf(runs) {
  const measured = runs.flatMap((outcome) => (outcome.afterLoad ? [outcome.afterLoad] : []));
  if (measured.length === 0) return undefined;
  return {
    ms: median(measured.map((after) => after.ms)),
    cpuUsPerRequest: median(measured.map((after) => after.cpuUsPerRequest)),
    cpuUsPerRequestInRun: median(runs.map((outcome) => outcome.serverCpuUsPerRequest ?? NaN)),
    finished: measured.every((after) => after.finished),
  };
}

/** "busy 1.8 s after the load, +3 µs of server CPU a request (71 in the run)". @param {NonNullable<ReturnType<typeof afterLoadOf>>} after */
function afterLoadText(after) {
  const busy = `${after.finished ? "" : "still "}busy ${(after.ms / 1000).toFixed(1)} s after the load`;
  return `${busy}, +${int(after.cpuUsPerRequest)} µs of server CPU a request (${int(after.cpuUsPerRequestInRun)} in the run)`;
}

/**
 * The throughput table (each row's median req/s, p50, p99, errors, and its ratio to the fastest
 * peer on the same body and to bare node:http), the peers that were not measured and why, and
 * the targets judged on them.
 * @param {Scenario[]} scenarioList every row, those of peers not measured too
 * @param {Map<string, Outcome[]>} outcomes
 */
export function throughputSection(scenarioList, outcomes) {
  const measured = scenarioList.filter((scenario) => scenario.notMeasured === undefined);
  const scenarios = measured.map((scenario) => summarize(scenario, outcomes.get(scenario.id) ?? []));
  const byId = Object.fromEntries(scenarios.map((s) => [s.id, s]));
  const nodeHttp = byId.baseline_http?.rps ?? NaN;
  /** @param {"valid" | "invalid"} kind the fastest peer measured on that body, and the peers that were not */
  const fastestPeer = (kind) => {
    const peers = scenarioList.filter((scenario) => scenario.peer === kind);
    const ran = peers
      .filter((scenario) => scenario.notMeasured === undefined)
      .map((scenario) => /** @type {ReturnType<typeof summarize>} */ (byId[scenario.id]));
    const fastest = ran.reduce(
      (best, row) => (best === undefined || row.rps > best.rps ? row : best),
      /** @type {ReturnType<typeof summarize> | undefined} */ (undefined),
    );
    return { fastest, missing: peers.filter((scenario) => scenario.notMeasured !== undefined).map((scenario) => scenario.label) };
  };
  const peerValid = fastestPeer("valid");
  const peerInvalid = fastestPeer("invalid");
  const ratio = (/** @type {number} */ rps, /** @type {number} */ base) => (Number.isFinite(base) ? `${(rps / base).toFixed(2)}x` : "");
  const isInvalid = (/** @type {{ id: string }} */ s) => s.id === "send_invalid_recipient" || byId[s.id]?.expectStatus !== 200;

  const rows = [["scenario", `req/s (median of ${RUNS})`, "p50 ms", "p99 ms", "errors", "vs fastest peer (same body)", "vs node:http"]];
  for (const scenario of scenarioList) {
    const s = byId[scenario.id];
    if (s === undefined) {
      rows.push([scenario.label, "not measured", "", "", "", "", ""]);
      continue;
    }
    const errors = s.errors + s.unexpectedStatuses;
    const detail = s.expectedNon2xx > 0 ? ` (${int(s.expectedNon2xx)} expected ${s.expectStatus})` : s.non2xx > 0 ? ` (${int(s.non2xx)} non-2xx)` : "";
    const peer = isInvalid(s) ? peerInvalid.fastest : peerValid.fastest;
    rows.push([s.label, int(s.rps), s.p50Ms.toFixed(1), s.p99Ms.toFixed(1), `${int(errors)}${detail}`, ratio(s.rps, peer?.rps ?? NaN), ratio(s.rps, nodeHttp)]);
  }
  const lines = [table(rows)];
  // Once per server, not once per body.
  const reasons = new Set(
    scenarioList.filter((s) => s.notMeasured !== undefined).map((s) => `${s.label.replace(/ \([^)]*\)$/, "")}: not measured: ${s.notMeasured}`),
  );
  lines.push(...reasons);
  // A store whose lifecycle keeps up is busy about LIFECYCLE_SPAN_MS after the load, one that fell
  // behind longer, and its req/s left that part of the cost out.
  for (const s of scenarios)
    if (s.afterLoad !== undefined)
      lines.push(`${s.label}: ${afterLoadText(s.afterLoad)} (medians; a send's last lifecycle step falls due ${LIFECYCLE_SPAN_MS / 1000} s after it)`);
  lines.push(
    `fastest peer: valid body ${peerValid.fastest ? `${peerValid.fastest.label.replace(/^peer: /, "")} ${int(peerValid.fastest.rps)} req/s` : "none measured"}; invalid body ${peerInvalid.fastest ? `${peerInvalid.fastest.label.replace(/^peer: /, "")} ${int(peerInvalid.fastest.rps)} req/s` : "none measured"}`,
  );

  /**
   * @param {string} name
   * @param {ReturnType<typeof summarize> | undefined} row
   * @param {ReturnType<typeof fastestPeer>} peer
   */
  const peerTarget = (name, row, peer) => {
    const base = peer.fastest?.rps ?? NaN;
    const figure = row && peer.fastest ? `${int(row.rps)} req/s vs ${PEER_MIN_RATIO} x ${int(base)} (${peer.fastest.label}): ${ratio(row.rps, base)}` : "";
    if (row === undefined || peer.fastest === undefined || peer.missing.length > 0)
      return {
        name,
        pass: null,
        detail: `not judged: ${[...peer.missing.map((label) => `${label} not measured`), ...(row ? [] : ["no sendmock row"])].join(", ") || "no peer measured"}${figure ? `; against those measured ${figure}` : ""}`,
      };
    return { name, pass: row.rps >= PEER_MIN_RATIO * base, detail: figure };
  };
  /** @param {string} name @param {ReturnType<typeof summarize> | undefined} row */
  const nodeTarget = (name, row) =>
    row === undefined || !Number.isFinite(nodeHttp)
      ? { name, pass: null, detail: "not judged: a row is missing" }
      : {
          name,
          pass: row.rps >= NODE_HTTP_MIN_RATIO * nodeHttp,
          detail: `${int(row.rps)} req/s vs ${NODE_HTTP_MIN_RATIO} x ${int(nodeHttp)}: ${ratio(row.rps, nodeHttp)}`,
        };
  const send = byId.send_valid;
  const invalid = byId.send_invalid_recipient;
  /** @type {{ name: string, pass: boolean | null, detail: string }[]} */
  const targets = [
    peerTarget(`valid send >= ${PEER_MIN_RATIO} x the fastest peer`, send, peerValid),
    nodeTarget(`valid send >= ${NODE_HTTP_MIN_RATIO} x bare node:http`, send),
    peerTarget(`422 path >= ${PEER_MIN_RATIO} x the fastest peer`, invalid, peerInvalid),
    // Bare node:http checks nothing, so its valid-body figure is the ceiling for both bodies.
    nodeTarget(`422 path >= ${NODE_HTTP_MIN_RATIO} x bare node:http`, invalid),
  ];
  const list = byId.list_10k;
  if (list !== undefined && send !== undefined)
    targets.push({
      name: "inspection list (10k) no slower than a send",
      pass: list.rps >= send.rps,
      // express serves /_mock (issue 30 §2): its own floor for a call that does nothing bounds the list.
      detail: `${int(list.rps)} req/s vs ${int(send.rps)}: ${ratio(list.rps, send.rps)}${byId.baseline_express ? `; express alone, one GET route: ${int(byId.baseline_express.rps)} req/s (${ratio(byId.baseline_express.rps, send.rps)})` : ""}`,
    });
  if (scenarioList.some((scenario) => scenario.id === "list_10k")) {
    for (const [memoryId, redisId, what] of /** @type {const} */ ([
      ["send_valid", "send_valid_redis", "send"],
      ["list_10k", "list_10k_redis", "list (10k)"],
    ])) {
      const memoryRow = byId[memoryId];
      const redisRow = byId[redisId];
      const name = `redis store ${what} >= ${REDIS_MIN_RATIO} x memory`;
      targets.push(
        memoryRow === undefined || redisRow === undefined
          ? { name, pass: null, detail: "not judged: no redis-server to measure the redis store on" }
          : {
              name,
              pass: redisRow.rps >= REDIS_MIN_RATIO * memoryRow.rps,
              detail: `${int(redisRow.rps)} req/s vs ${int(memoryRow.rps)}: ${ratio(redisRow.rps, memoryRow.rps)}${redisRow.afterLoad ? `; redis ${afterLoadText(redisRow.afterLoad)}` : ""}`,
            },
      );
    }
  }
  const inSandbox = byId.send_valid_sandbox;
  if (inSandbox !== undefined && send !== undefined)
    targets.push({
      name: `send in a sandbox >= ${SANDBOX_MIN_RATIO} x without`,
      pass: inSandbox.rps >= SANDBOX_MIN_RATIO * send.rps,
      detail: `${int(inSandbox.rps)} req/s vs ${int(send.rps)}: ${ratio(inSandbox.rps, send.rps)}`,
    });
  // Peers' own errors show in their rows; a target judges sendmock's.
  const own = scenarios.filter((s) => !s.id.startsWith("baseline_") && !s.id.startsWith("prism_") && !s.id.startsWith("wiremock_"));
  const requestErrors = own.reduce((sum, s) => sum + s.errors + s.unexpectedStatuses, 0);
  targets.push({
    name: "no request errors",
    pass: requestErrors === 0,
    detail: `${int(requestErrors)} (connection errors/timeouts ${int(own.reduce((sum, s) => sum + s.errors, 0))}, unexpected statuses ${int(own.reduce((sum, s) => sum + s.unexpectedStatuses, 0))})`,
  });
  const report = {
    scenarios: scenarios.map((s) => {
      const peer = isInvalid(s) ? peerInvalid.fastest : peerValid.fastest;
      return { ...s, vsFastestPeer: s.rps / (peer?.rps ?? NaN), fastestPeer: peer?.id ?? null, vsNodeHttp: s.rps / nodeHttp };
    }),
    notMeasured: Object.fromEntries(scenarioList.filter((s) => s.notMeasured !== undefined).map((s) => [s.id, s.notMeasured])),
  };
  return { lines, targets, report, byId };
}

/** BENCH_ONLY=peers: sendmock's two send rows and every peer, round-robin: a quick look at the ratios. @param {BenchRun} bench */
export async function peersOnly(bench) {
  makeTempDir(bench);
  const began = performance.now();
  const { peers, responses } = await peersAndResponses(bench);
  const scenarioList = [...benchScenarios(bench).filter((scenario) => PEER_SECTION_IDS.includes(scenario.id)), ...peers];
  const toRun = scenarioList.filter((scenario) => scenario.notMeasured === undefined);
  log(
    `peers only: ${RUNS} run(s) x ${toRun.length} scenarios x ${DURATION} s (+${WARMUP} s warm-up), ${CONNECTIONS} connections; node ${process.version}, ${os.cpus().length} cores`,
  );
  const outcomes = await roundRobin(toRun);
  const section = throughputSection(scenarioList, outcomes);
  finish(
    [
      "",
      `sendmock bench, peers: ${RUNS} run(s) per scenario, ${DURATION} s each (+${WARMUP} s warm-up), ${CONNECTIONS} connections, pipelining 1; node ${process.version}, ${os.cpus().length} cores`,
      `POST /send body: ${Buffer.byteLength(VALID_BODY)} bytes (invalid: to "not-an-address")`,
      "",
      ...section.lines,
      "",
      ...responseLines(responses),
    ],
    section.targets,
    { settings: { durationS: DURATION, runs: RUNS, warmupS: WARMUP, connections: CONNECTIONS }, ...section.report, responses },
    began,
  );
}

/** BENCH_ONLY=sandboxes: a send with X-Sendmock-Sandbox beside one without, round-robin, and the target between them. @param {BenchRun} bench */
export async function sandboxesOnly(bench) {
  makeTempDir(bench);
  const began = performance.now();
  const scenarioList = benchScenarios(bench).filter((scenario) => scenario.id === "send_valid" || scenario.id === "send_valid_sandbox");
  log(`sandboxes only: ${RUNS} run(s) x 2 scenarios x ${DURATION} s (+${WARMUP} s warm-up), ${CONNECTIONS} connections`);
  const section = throughputSection(scenarioList, await roundRobin(scenarioList));
  finish(
    [
      "",
      `sendmock bench, sandboxes: ${RUNS} run(s) per scenario, ${DURATION} s each, ${CONNECTIONS} connections; node ${process.version}`,
      "",
      ...section.lines,
    ],
    section.targets.filter((target) => target.name.startsWith("send in a sandbox")),
    { settings: { durationS: DURATION, runs: RUNS, warmupS: WARMUP, connections: CONNECTIONS }, ...section.report },
    began,
  );
}

/** BENCH_ONLY=stores: the memory store's send and list beside the redis store's and express's floor, round-robin, and the targets on them. @param {BenchRun} bench */
export async function storesOnly(bench) {
  makeTempDir(bench);
  const began = performance.now();
  bench.redis = await startBenchRedis();
  if (bench.redis === undefined) throw new Error("BENCH_ONLY=stores needs redis-server on the PATH (apt-get install redis-server)");
  const scenarioList = benchScenarios(bench).filter((scenario) => STORE_SECTION_IDS.includes(scenario.id));
  log(
    `stores only: ${RUNS} run(s) x ${scenarioList.length} scenarios x ${DURATION} s (+${WARMUP} s warm-up), ${CONNECTIONS} connections; node ${process.version}, ${os.cpus().length} cores`,
  );
  const outcomes = await roundRobin(scenarioList);
  const section = throughputSection(scenarioList, outcomes);
  const storeTargets = section.targets.filter((target) => target.name.startsWith("redis store") || target.name.startsWith("inspection list (10k) no slower"));
  finish(
    [
      "",
      `sendmock bench, stores: ${RUNS} run(s) per scenario, ${DURATION} s each (+${WARMUP} s warm-up), ${CONNECTIONS} connections, pipelining 1; node ${process.version}, ${os.cpus().length} cores`,
      "",
      ...section.lines,
    ],
    storeTargets,
    { settings: { durationS: DURATION, runs: RUNS, warmupS: WARMUP, connections: CONNECTIONS }, ...section.report },
    began,
  );
}
