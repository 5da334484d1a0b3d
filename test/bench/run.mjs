// `npm run bench`: throughput of sendmock against its peers (bare node:http, express +
// express-openapi-validator, Prism, WireMock), its startup time, its memory, a soak (its heap
// under sustained load) and what each speed device earns, each server started fresh in its own
// child process. Prints a table and a TARGETS block, and writes the same to
// test-results/bench.json. Knobs: BENCH_DURATION (seconds per run, default 10), BENCH_RUNS
// (runs per scenario, default 3), BENCH_WARMUP (seconds of discarded load before each run,
// default 1), BENCH_SOAK_SECONDS (length of the soak, default 60, 0 skips it), BENCH_ONLY=soak
// (the soak alone), BENCH_ONLY=startup, abuse, log, webhooks, search, peers, stores, devices or memory (that
// section alone), BENCH_STRICT=1 (exit 2 when a target is missed or could not be judged), BENCH_PEERS_DIR
// (where Prism and WireMock are installed, see lib/peers.mjs); the abuse section's own knobs are in abuse.mjs.

import { spawn, spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import autocannon from "autocannon";
import { measureAbuse } from "./abuse.mjs";
import { deviceLines, measureDevices } from "./devices.mjs";
import { preparePeers } from "./lib/peers.mjs";
import { CLI, cpuMsOf, freePort, killAll, median, memoryOf, ROOT, spawnNode, startServer, stopServer } from "./lib/servers.mjs";
import { measureStartupSection, startupLines, startupTargets } from "./startup.mjs";

const DURATION = positiveNumber("BENCH_DURATION", 10);
const RUNS = Math.round(positiveNumber("BENCH_RUNS", 3));
const WARMUP = nonNegativeNumber("BENCH_WARMUP", 1);
const STRICT = process.env.BENCH_STRICT === "1";
const SOAK_SECONDS = nonNegativeNumber("BENCH_SOAK_SECONDS", 60);
const ONLY = onlySection("BENCH_ONLY", ["soak", "startup", "abuse", "log", "webhooks", "search", "peers", "stores", "devices", "memory"]);
const CONNECTIONS = 50;
const SETTLE_MS = 1000;
const LIST_FILL = 10_000;
const MEMORY_SMALL = 10_000;
const MEMORY_LARGE = 100_000;
const MB = 1024 * 1024;
// The knob docs/performance.md gives for large capacities: V8 lets its heap grow to a few times
// the live heap before collecting, and RSS follows the heap. Since message and journal text went
// off the heap (src/stores/memory/text-arena.ts), 100k messages with their journal entries take
// ~58 MB of live heap (~0.6 KB each, after a full collection) and ~2.7 KB each of text outside it:
// RSS 605 MB at 100k by default, 471 MB with this cap (before: 527 MB live, RSS 1,458 MB).
const HEAP_CAP_FLAG = "--max-old-space-size=1024";
// The soak fills the outbox (capacity 10,000) in its first seconds; the heap is judged after
// this share of the run, when the outbox and the journal are full and every send drops one.
const SOAK_WARMUP_SHARE = 1 / 3;
const SOAK_CAPACITY = 10_000;
// "Flat": after warm-up, the live heap's fitted growth over the rest of the run stays under
// this share of its mean. With nothing leaking it still moves by about 2%: the journal trims
// itself in batches of capacity/8 entries. 5% is clear of that, and at 2,000 sends/s over 40 s
// (some 55 MB live) it still flags a leak of about 35 bytes per send.
const SOAK_FLAT_GROWTH_SHARE = 0.05;
// The request log (a line per /send on stdout, which the bench reads as a terminal would) may
// cost at most this share of POST /send throughput, against the same server with --quiet.
const LOG_MAX_COST_SHARE = 0.05;
// Issue 30's targets: sendmock's valid send and its 422 each at least this many times the
// fastest peer (Prism, WireMock, express + validator) on the same body, and this share of bare
// node:http; the Redis store at least this share of the memory store.
const PEER_MIN_RATIO = 2;
const NODE_HTTP_MIN_RATIO = 0.2;
const REDIS_MIN_RATIO = 0.5;
// WireMock runs on the JVM, which compiles its hot code only after thousands of requests: with
// the 1 s warm-up node's servers get, a 3 s run measured it at a fifth of its later rate. A peer
// measured below its best would flatter sendmock, so the JVM gets this much warm-up at least.
const JVM_WARMUP_S = 5;

const API_KEY = "bench-key-0001";
const VALID_BODY = JSON.stringify({
  to: "ada@example.com",
  template_id: "welcome",
  data: { name: "Ada", company: "Analytical Engines", login_url: "https://app.example.com/login" },
});
const INVALID_BODY = JSON.stringify({ ...JSON.parse(VALID_BODY), to: "not-an-address" });
const SEND_HEADERS = { authorization: `Bearer ${API_KEY}`, "content-type": "application/json" };

/** @param {string} name @param {number} fallback */
function positiveNumber(name, fallback) {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a number > 0, got ${JSON.stringify(raw)}`);
  return value;
}

/** @param {string} name @param {number} fallback */
function nonNegativeNumber(name, fallback) {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a number >= 0, got ${JSON.stringify(raw)}`);
  return value;
}

/**
 * @param {string} name
 * @param {string[]} sections the sections that can run alone
 * @returns {string | undefined} undefined: run everything
 */
function onlySection(name, sections) {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return undefined;
  if (!sections.includes(raw)) throw new Error(`${name} must be one of ${sections.join(", ")}, got ${JSON.stringify(raw)}`);
  return raw;
}

/** @param {string} line */
function log(line) {
  process.stderr.write(`bench: ${line}\n`);
}

// ---------------------------------------------------------------------------------------------
// Servers

let tempDir = "";

/**
 * A config file with that capacity, in the bench's temp folder. max_bytes is raised out of the
 * way: these scenarios measure `capacity` messages (100k of them hold ~180 MB of JSON, past the
 * default 48 MB byte bound).
 * @param {number} capacity
 */
function configWithCapacity(capacity) {
  const file = path.join(tempDir, `capacity-${capacity}.yaml`);
  writeFileSync(file, `capacity: ${capacity}\nmax_bytes: 2gb\n`);
  return file;
}

/** @param {string[]} extra arguments to `sendmock serve` @param {string[]} nodeFlags */
const sendmock = (extra = [], nodeFlags = []) => startServer("sendmock", [...nodeFlags, CLI, "serve", "--port", "0", ...extra]);
/**
 * A redis-server of the bench's own for the redis store's rows, or undefined (with the reason
 * logged) when Debian's redis-server is not installed.
 * @returns {Promise<{ url: string, stop: () => void } | undefined>}
 */
async function startBenchRedis() {
  if (spawnSync("redis-server", ["--version"], { stdio: "ignore" }).status !== 0) {
    log("redis store rows skipped: redis-server is not on the PATH (apt-get install redis-server)");
    return undefined;
  }
  const port = await freePort();
  const child = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], {
    stdio: ["ignore", "pipe", "ignore"],
  });
  const url = `redis://127.0.0.1:${port}`;
  // redis-server logs this line to stdout once it accepts connections.
  await new Promise((resolve, reject) => {
    let output = "";
    const timer = setTimeout(() => reject(new Error(`redis-server on ${url} was not ready within 5 s`)), 5000);
    child.stdout.setEncoding("utf8").on("data", (/** @type {string} */ chunk) => {
      output += chunk;
      if (!output.includes("Ready to accept connections")) return;
      clearTimeout(timer);
      resolve(undefined);
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited with ${String(code)} before it was ready`));
    });
  });
  return { url, stop: () => child.kill("SIGKILL") };
}

/** @type {{ url: string, stop: () => void } | undefined} */
let benchRedis;
/** A sendmock on the bench's Redis, on a key prefix of its own so that no run sees another's data. */
const sendmockOnRedis = (/** @type {string[]} */ extra = []) =>
  sendmock(["--redis-url", /** @type {{ url: string }} */ (benchRedis).url, "--key-prefix", `bench:${randomUUID()}:`, ...extra]);

const baselineValidator = () => startServer("baseline-validator", [path.join(ROOT, "test/bench/baseline-validator.mjs"), "0"]);
const baselineHttp = () => startServer("baseline-http", [path.join(ROOT, "test/bench/baseline-http.mjs"), "0"]);
// --expose-gc: the soak server then reports the live heap, after a full collection, every 5 s.
const soakServer = () => startServer("sendmock-soak", ["--expose-gc", path.join(ROOT, "test/bench/soak-server.mjs"), String(SOAK_CAPACITY)]);

// ---------------------------------------------------------------------------------------------
// Load

/**
 * @typedef {object} Load
 * @property {string} method
 * @property {string} path
 * @property {Record<string, string>} [headers]
 * @property {string} [body]
 * @property {(sequence: number) => string} [bodyOf] a new body for every request, instead of `body`
 * @property {number} expectStatus the status every response should have
 */

/**
 * @typedef {object} Outcome
 * @property {number} rps mean of autocannon's per-second samples
 * @property {number} p50 ms
 * @property {number} p99 ms
 * @property {number} requests responses received
 * @property {number} non2xx
 * @property {number} expected responses with the expected status
 * @property {number} unexpected responses with any other status
 * @property {number} errors connection errors and timeouts
 * @property {number} timeouts
 * @property {Record<string, number>} statuses
 * @property {number} [serverCpuUsPerRequest] the server's CPU time (user + system) over the measured run, per response
 */

/**
 * Runs autocannon against `url` and counts responses by the status they should have.
 * @param {string} url
 * @param {Load} load
 * @param {{ duration?: number, amount?: number }} length
 * @returns {Promise<Outcome>}
 */
async function fire(url, load, length) {
  const { bodyOf } = load;
  let sequence = 0;
  const result = await autocannon({
    url: url + load.path,
    method: /** @type {any} */ (load.method),
    headers: load.headers,
    body: load.body,
    ...(bodyOf && { requests: [{ setupRequest: (/** @type {{ body?: string }} */ request) => ({ ...request, body: bodyOf((sequence += 1)) }) }] }),
    connections: CONNECTIONS,
    pipelining: 1,
    ...(length.amount === undefined ? { duration: length.duration } : { amount: length.amount }),
  });
  /** @type {Record<string, number>} */
  const statuses = {};
  for (const [code, { count }] of Object.entries(result.statusCodeStats)) statuses[code] = count;
  const requests = Object.values(statuses).reduce((sum, count) => sum + count, 0);
  const expected = statuses[String(load.expectStatus)] ?? 0;
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests,
    non2xx: result.non2xx,
    expected,
    unexpected: requests - expected,
    errors: result.errors,
    timeouts: result.timeouts,
    statuses,
  };
}

/**
 * Captures `count` messages through POST /send as fast as 50 connections go, and checks they are all there.
 * @param {string} url
 * @param {number} count
 */
async function fill(url, count) {
  const started = performance.now();
  const outcome = await fire(url, { method: "POST", path: "/send", headers: SEND_HEADERS, body: VALID_BODY, expectStatus: 200 }, { amount: count });
  if (outcome.expected !== count || outcome.errors > 0) {
    throw new Error(
      `filling ${url} with ${count} messages: ${outcome.expected} answered 200, ${outcome.unexpected} other statuses ${JSON.stringify(outcome.statuses)}, ${outcome.errors} errors`,
    );
  }
  return { seconds: (performance.now() - started) / 1000, outcome };
}

/** @param {string} url @returns {Promise<{ messages: unknown[], total: number }>} */
async function listMessages(url, query) {
  const response = await fetch(`${url}/_mock/messages?${query}`);
  if (response.status !== 200) throw new Error(`GET /_mock/messages?${query}: status ${response.status}`);
  return /** @type {any} */ (await response.json());
}

// ---------------------------------------------------------------------------------------------
// Scenarios

/**
 * @typedef {object} Scenario
 * @property {string} id
 * @property {string} label
 * @property {() => Promise<import("./lib/servers.mjs").Server>} start
 * @property {(url: string) => Promise<void>} [prepare]
 * @property {boolean} [redis] needs the bench's Redis (the row is left out without one)
 * @property {"valid" | "invalid"} [peer] a peer the targets compare with, on the valid or the invalid body
 * @property {string} [notMeasured] why a peer's row has no figures (its install failed)
 * @property {number} [warmupS] seconds of discarded load before each run, when not WARMUP
 * @property {Load} load
 */

/** @type {Scenario[]} */
const SCENARIOS = [
  {
    id: "send_valid",
    label: "sendmock POST /send (valid)",
    start: () => sendmock(),
    load: { method: "POST", path: "/send", headers: SEND_HEADERS, body: VALID_BODY, expectStatus: 200 },
  },
  {
    id: "send_valid_log_json",
    label: "sendmock POST /send (valid), --log-format json",
    start: () => sendmock(["--log-format", "json"]),
    load: { method: "POST", path: "/send", headers: SEND_HEADERS, body: VALID_BODY, expectStatus: 200 },
  },
  {
    id: "send_valid_quiet",
    label: "sendmock POST /send (valid), --quiet (no request log)",
    start: () => sendmock(["--quiet"]),
    load: { method: "POST", path: "/send", headers: SEND_HEADERS, body: VALID_BODY, expectStatus: 200 },
  },
  {
    id: "send_invalid_recipient",
    label: "sendmock POST /send (invalid recipient, 422)",
    start: () => sendmock(),
    load: { method: "POST", path: "/send", headers: SEND_HEADERS, body: INVALID_BODY, expectStatus: 422 },
  },
  {
    id: "list_10k",
    label: "sendmock GET /_mock/messages (10k captured, limit 50)",
    start: () => sendmock(["--config", configWithCapacity(2 * LIST_FILL)]),
    prepare: async (url) => {
      await fill(url, LIST_FILL);
      const { total } = await listMessages(url, "limit=1");
      if (total !== LIST_FILL) throw new Error(`expected ${LIST_FILL} captured messages before the list run, found ${total}`);
    },
    load: { method: "GET", path: "/_mock/messages?to=ada@example.com&limit=50", expectStatus: 200 },
  },
  {
    id: "send_valid_redis",
    label: "sendmock POST /send (valid), redis store",
    redis: true,
    start: () => sendmockOnRedis(),
    load: { method: "POST", path: "/send", headers: SEND_HEADERS, body: VALID_BODY, expectStatus: 200 },
  },
  {
    id: "list_10k_redis",
    label: "sendmock GET /_mock/messages (10k, limit 50), redis store",
    redis: true,
    start: () => sendmockOnRedis(["--config", configWithCapacity(2 * LIST_FILL)]),
    prepare: async (url) => {
      await fill(url, LIST_FILL);
      const { total } = await listMessages(url, "limit=1");
      if (total !== LIST_FILL) throw new Error(`expected ${LIST_FILL} captured messages before the list run, found ${total}`);
    },
    load: { method: "GET", path: "/_mock/messages?to=ada@example.com&limit=50", expectStatus: 200 },
  },
  {
    id: "baseline_validator",
    label: "peer: express + openapi-validator (valid)",
    peer: "valid",
    start: baselineValidator,
    load: { method: "POST", path: "/send", headers: SEND_HEADERS, body: VALID_BODY, expectStatus: 200 },
  },
  {
    id: "baseline_validator_invalid",
    label: "peer: express + openapi-validator (invalid, 400)",
    peer: "invalid",
    start: baselineValidator,
    // express-openapi-validator responds to a format error with 400; the baseline keeps its status.
    load: { method: "POST", path: "/send", headers: SEND_HEADERS, body: INVALID_BODY, expectStatus: 400 },
  },
  {
    id: "baseline_http",
    label: "bare node:http (valid)",
    start: baselineHttp,
    load: { method: "POST", path: "/send", headers: SEND_HEADERS, body: VALID_BODY, expectStatus: 200 },
  },
];

/** The scenarios that BENCH_ONLY=stores runs: the memory store's send and list beside the redis store's. */
const STORE_SECTION_IDS = ["send_valid", "send_valid_redis", "list_10k", "list_10k_redis"];

/** The scenarios that BENCH_ONLY=peers runs besides the installed peers' own. */
const PEER_SECTION_IDS = ["send_valid", "send_invalid_recipient", "baseline_http", "baseline_validator", "baseline_validator_invalid"];

/**
 * Prism's and WireMock's rows, on the valid and the invalid body, or rows that say why they
 * were not measured. Both respond to the invalid recipient with 422, as sendmock does.
 * @param {Awaited<ReturnType<typeof preparePeers>>} peers
 * @returns {Scenario[]}
 */
function peerScenarios(peers) {
  /** @type {Scenario[]} */
  const rows = [];
  for (const [key, name] of /** @type {const} */ ([
    ["prism", "Prism mock -v error"],
    ["wiremock", "WireMock, stubs"],
  ])) {
    const peer = peers[key];
    for (const kind of /** @type {const} */ (["valid", "invalid"])) {
      rows.push({
        id: `${key}_${kind}`,
        label: `peer: ${name} (${kind === "valid" ? "valid" : "invalid, 422"})`,
        peer: kind,
        ...(key === "wiremock" && { warmupS: Math.max(WARMUP, JVM_WARMUP_S) }),
        ...("notMeasured" in peer ? { notMeasured: peer.notMeasured, start: () => Promise.reject(new Error(peer.notMeasured)) } : { start: peer.start }),
        load: {
          method: "POST",
          path: "/send",
          headers: SEND_HEADERS,
          body: kind === "valid" ? VALID_BODY : INVALID_BODY,
          expectStatus: kind === "valid" ? 200 : 422,
        },
      });
    }
  }
  return rows;
}

/**
 * One valid and one invalid POST /send to each server before the runs: what each responses
 * (status and the start of its body), printed beside the table.
 * @param {Scenario[]} scenarios the valid rows of the servers to ask
 */
async function probeResponses(scenarios) {
  /** @type {{ id: string, label: string, valid?: { status: number, body: string }, invalid?: { status: number, body: string }, error?: string }[]} */
  const responses = [];
  for (const scenario of scenarios) {
    if (scenario.notMeasured !== undefined) continue;
    const server = await scenario.start();
    try {
      /** @param {string} body */
      const ask = async (body) => {
        const response = await fetch(`${server.url}/send`, { method: "POST", headers: SEND_HEADERS, body });
        return { status: response.status, body: (await response.text()).slice(0, 100) };
      };
      responses.push({ id: scenario.id, label: scenario.label.replace(/ \(valid\)$/, ""), valid: await ask(VALID_BODY), invalid: await ask(INVALID_BODY) });
    } catch (error) {
      responses.push({ id: scenario.id, label: scenario.label, error: error instanceof Error ? error.message : String(error) });
    } finally {
      await stopServer(server);
    }
  }
  return responses;
}

/** @param {Awaited<ReturnType<typeof probeResponses>>} responses */
function responseLines(responses) {
  const width = Math.max(...responses.map((response) => response.label.length));
  return [
    "what each server answers (one request each before the runs: status, then the start of the body)",
    ...responses.map((response) =>
      response.error !== undefined
        ? `  ${response.label.padEnd(width)}  failed: ${response.error}`
        : `  ${response.label.padEnd(width)}  valid ${response.valid?.status} ${response.valid?.body}\n  ${"".padEnd(width)}  invalid ${response.invalid?.status} ${response.invalid?.body}`,
    ),
  ];
}

/** @param {Scenario} scenario @param {number} run */
async function measure(scenario, run) {
  const server = await scenario.start();
  try {
    if (scenario.prepare) await scenario.prepare(server.url);
    const warmup = scenario.warmupS ?? WARMUP;
    if (warmup > 0) await fire(server.url, scenario.load, { duration: warmup });
    const cpuBefore = cpuMsOf(server.pid);
    const outcome = await fire(server.url, scenario.load, { duration: DURATION });
    outcome.serverCpuUsPerRequest = ((cpuMsOf(server.pid) - cpuBefore) * 1000) / outcome.requests;
    if (server.exited()) {
      throw new Error(
        `${scenario.id} run ${run}: ${server.name} (pid ${server.pid}) exited during the run (${JSON.stringify(outcome.statuses)}, ${outcome.errors} errors)${server.stderrTail() ? `:\n${server.stderrTail()}` : ""}`,
      );
    }
    log(
      `${scenario.id} run ${run}/${RUNS}: ${outcome.rps.toFixed(0)} req/s, server CPU ${outcome.serverCpuUsPerRequest.toFixed(0)} µs/request, p50 ${outcome.p50} ms, p99 ${outcome.p99} ms, statuses ${JSON.stringify(outcome.statuses)}, errors ${outcome.errors}`,
    );
    return outcome;
  } finally {
    await stopServer(server);
  }
}

/**
 * RUNS runs of each scenario, round-robin over them, so a slow drift of the machine hits every
 * scenario alike; each scenario's outcomes in run order.
 * @param {Scenario[]} scenarios
 */
async function roundRobin(scenarios) {
  /** @type {Map<string, Outcome[]>} */
  const outcomes = new Map(scenarios.map((scenario) => [scenario.id, []]));
  for (let run = 1; run <= RUNS; run += 1) {
    for (const scenario of scenarios) {
      outcomes.get(scenario.id)?.push(await measure(scenario, run));
      await sleep(SETTLE_MS);
    }
  }
  return outcomes;
}

/** Bytes of JSON per captured message, from the newest 10,000 (or fewer). */
async function jsonPerMessage(url) {
  const { messages } = await listMessages(url, "limit=10000");
  const size = messages.reduce((sum, message) => sum + JSON.stringify(message).length, 0);
  return { perMessage: size / messages.length, sampled: messages.length };
}

/** @param {string[]} nodeFlags */
async function measureMemory(nodeFlags = []) {
  const server = await sendmock(["--config", configWithCapacity(MEMORY_LARGE)], nodeFlags);
  try {
    /** @param {number} count */
    const point = async (count) => {
      await sleep(SETTLE_MS);
      const memory = memoryOf(server.pid);
      const { total } = await listMessages(server.url, "limit=1");
      if (total !== count) throw new Error(`expected ${count} captured messages, found ${total}`);
      const json = await jsonPerMessage(server.url);
      const jsonBytes = Math.round(json.perMessage * count);
      const targetBytes = 3 * jsonBytes + 100 * MB;
      return { messages: count, rssBytes: memory.rss, peakRssBytes: memory.peak, jsonBytes, jsonBytesPerMessage: Math.round(json.perMessage), targetBytes };
    };
    const small = await fill(server.url, MEMORY_SMALL);
    log(`memory: ${MEMORY_SMALL} sends in ${small.seconds.toFixed(1)} s`);
    const at10k = await point(MEMORY_SMALL);
    const large = await fill(server.url, MEMORY_LARGE - MEMORY_SMALL);
    log(`memory: ${MEMORY_LARGE - MEMORY_SMALL} more sends in ${large.seconds.toFixed(1)} s`);
    const at100k = await point(MEMORY_LARGE);
    return { at10k, at100k };
  } finally {
    await stopServer(server);
  }
}

// ---------------------------------------------------------------------------------------------
// Soak

/**
 * @typedef {object} HeapSample
 * @property {number} atS seconds since the soak's load began
 * @property {number} heapUsed bytes
 * @property {number} heapTotal bytes
 * @property {number} rss bytes
 * @property {number} [heapUsedAfterGc] bytes, right after a full collection (every 5th sample)
 */

const SOAK_REQUEST = JSON.parse(VALID_BODY);
// A new recipient for every send, so that the outbox's per-recipient index is created and
// dropped all the time too, not only the capture queue.
const soakBody = (/** @type {number} */ sequence) => JSON.stringify({ ...SOAK_REQUEST, to: `soak-${sequence}@example.com` });

/**
 * Least-squares line through the points.
 * @param {number[]} xs
 * @param {number[]} ys
 */
function linearFit(xs, ys) {
  const meanX = xs.reduce((sum, x) => sum + x, 0) / xs.length;
  const meanY = ys.reduce((sum, y) => sum + y, 0) / ys.length;
  let covariance = 0;
  let variance = 0;
  xs.forEach((x, i) => {
    covariance += (x - meanX) * /** @type {number} */ (ys[i] - meanY);
    variance += (x - meanX) ** 2;
  });
  return { slope: covariance / variance, meanY };
}

/** Full-speed valid sends to the soak server for SOAK_SECONDS, reading the heap it reports every second. */
async function measureSoak() {
  const server = await soakServer();
  /** @type {HeapSample[]} */
  const samples = [];
  let loadStartedAt = performance.now();
  let partialLine = "";
  const onData = (/** @type {string} */ chunk) => {
    const lines = (partialLine + chunk).split("\n");
    partialLine = lines.pop() ?? "";
    for (const line of lines) {
      if (!line.startsWith("{")) continue;
      const { heapUsed, heapTotal, rss, heapUsedAfterGc } = JSON.parse(line);
      samples.push({ atS: (performance.now() - loadStartedAt) / 1000, heapUsed, heapTotal, rss, heapUsedAfterGc });
    }
  };
  server.child.stdout?.on("data", onData);
  try {
    loadStartedAt = performance.now();
    const outcome = await fire(
      server.url,
      { method: "POST", path: "/send", headers: SEND_HEADERS, bodyOf: soakBody, expectStatus: 200 },
      { duration: SOAK_SECONDS },
    );
    if (server.exited()) throw new Error(`soak: ${server.name} exited during the run${server.stderrTail() ? `:\n${server.stderrTail()}` : ""}`);
    log(`soak: ${outcome.requests} sends, ${outcome.rps.toFixed(0)} req/s, statuses ${JSON.stringify(outcome.statuses)}, errors ${outcome.errors}`);
    return analyzeSoak(
      samples.filter((sample) => sample.atS > 0 && sample.atS <= SOAK_SECONDS),
      outcome,
    );
  } finally {
    server.child.stdout?.off("data", onData);
    await stopServer(server);
  }
}

/**
 * The heap curve (the samples taken with a full collection, every 5 s) and the slope of the live
 * heap after warm-up. heapUsed alone is a sawtooth: garbage piles up between collections, by
 * 100 MB and more at full speed, so a line through it says more about when V8 collected than
 * about what the mock keeps. The heap right after a full collection is what a leak would grow.
 * @param {HeapSample[]} samples
 * @param {Outcome} outcome
 */
function analyzeSoak(samples, outcome) {
  const warmupS = SOAK_SECONDS * SOAK_WARMUP_SHARE;
  const collected = samples.filter((sample) => sample.heapUsedAfterGc !== undefined);
  const steady = collected.filter((sample) => sample.atS >= warmupS);
  if (steady.length < 2)
    throw new Error(`soak: ${steady.length} live-heap sample(s) after the ${warmupS.toFixed(0)} s warm-up, too few for a slope; raise BENCH_SOAK_SECONDS`);
  const liveMb = steady.map((sample) => /** @type {number} */ (sample.heapUsedAfterGc) / MB);
  const fit = linearFit(
    steady.map((sample) => sample.atS / 60),
    liveMb,
  );
  const growthBytes = fit.slope * ((SOAK_SECONDS - warmupS) / 60) * MB;
  const rawSteady = samples.filter((sample) => sample.atS >= warmupS);
  const rawFit = linearFit(
    rawSteady.map((sample) => sample.atS / 60),
    rawSteady.map((sample) => sample.heapUsed / MB),
  );
  return {
    seconds: SOAK_SECONDS,
    connections: CONNECTIONS,
    capacity: SOAK_CAPACITY,
    sends: outcome.requests,
    rps: outcome.rps,
    errors: outcome.errors + outcome.unexpected,
    statuses: outcome.statuses,
    curve: collected.map((sample) => ({
      atS: Math.round(sample.atS),
      heapUsedBytes: sample.heapUsed,
      heapUsedAfterGcBytes: /** @type {number} */ (sample.heapUsedAfterGc),
      rssBytes: sample.rss,
    })),
    warmupS,
    fitSamples: steady.length,
    slopeMbPerMin: fit.slope,
    meanLiveHeapBytes: fit.meanY * MB,
    minLiveHeapBytes: Math.min(...liveMb) * MB,
    maxLiveHeapBytes: Math.max(...liveMb) * MB,
    heapUsedSlopeMbPerMin: rawFit.slope,
    growthBytes,
    growthShareOfMean: growthBytes / (fit.meanY * MB),
    flatBelowShareOfMean: SOAK_FLAT_GROWTH_SHARE,
    verdict: growthBytes < SOAK_FLAT_GROWTH_SHARE * fit.meanY * MB ? "flat" : "growing",
  };
}

// ---------------------------------------------------------------------------------------------
// Report

/** @param {number} bytes */
const mb = (bytes) => `${(bytes / MB).toFixed(1)} MB`;
/** @param {number} share */
const percent = (share) => `${(share * 100).toFixed(1)}%`;
/** @param {number} value */
const int = (value) => Math.round(value).toLocaleString("en-US");

/**
 * @param {string[][]} rows
 */
function table(rows) {
  const widths = /** @type {string[]} */ (rows[0]).map((_, column) => Math.max(...rows.map((row) => (row[column] ?? "").length)));
  const line = (/** @type {string[]} */ row) =>
    row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0))).join(" | ");
  return [line(/** @type {string[]} */ (rows[0])), widths.map((width) => "-".repeat(width)).join("-|-"), ...rows.slice(1).map(line)].join("\n");
}

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
    runs,
  };
}

/** @param {ReturnType<typeof analyzeSoak>} soak */
function soakLines(soak) {
  const rows = [["at s", "heapUsed MB", "after full GC MB", "rss MB"]];
  for (const point of soak.curve)
    rows.push([String(point.atS), (point.heapUsedBytes / MB).toFixed(1), (point.heapUsedAfterGcBytes / MB).toFixed(1), (point.rssBytes / MB).toFixed(1)]);
  const signed = (/** @type {number} */ value) => `${value >= 0 ? "+" : ""}${value.toFixed(2)} MB/min`;
  return [
    `soak: ${soak.seconds} s of valid POST /send (a new recipient each), ${soak.connections} connections, capacity ${int(soak.capacity)}: ${int(soak.sends)} sends, ${int(soak.rps)} req/s, ${int(soak.errors)} errors`,
    table(rows),
    `live heap (after full GC) from ${soak.warmupS.toFixed(0)} s on, ${soak.fitSamples} samples: slope ${signed(soak.slopeMbPerMin)} (least squares), mean ${mb(soak.meanLiveHeapBytes)}, range ${mb(soak.minLiveHeapBytes)} to ${mb(soak.maxLiveHeapBytes)}; heapUsed every second (sawtooth): ${signed(soak.heapUsedSlopeMbPerMin)}`,
    `verdict: ${soak.verdict}: fitted growth ${percent(soak.growthShareOfMean)} of the mean live heap over the last ${Math.round(soak.seconds - soak.warmupS)} s (flat = under ${percent(soak.flatBelowShareOfMean)})`,
  ];
}

/** @param {ReturnType<typeof analyzeSoak>} soak */
function soakTargets(soak) {
  return [
    {
      name: `soak live heap growth < ${percent(soak.flatBelowShareOfMean)}`,
      pass: soak.verdict === "flat",
      detail: `${percent(soak.growthShareOfMean)} (${soak.slopeMbPerMin.toFixed(2)} MB/min over the last ${Math.round(soak.seconds - soak.warmupS)} s, mean live heap ${mb(soak.meanLiveHeapBytes)})`,
    },
    { name: "no request errors in the soak", pass: soak.errors === 0, detail: `${int(soak.errors)} of ${int(soak.sends)}` },
  ];
}

/**
 * Prints the TARGETS block, writes test-results/bench.json, and sets the exit code for BENCH_STRICT.
 * @param {string[]} out the lines above TARGETS
 * @param {{ name: string, pass: boolean | null, detail: string }[]} targets null: could not be judged (a peer was not measured), never a pass
 * @param {Record<string, unknown>} report
 * @param {number} began performance.now() at the start
 */
function finish(out, targets, report, began) {
  const totalSeconds = Math.round((performance.now() - began) / 1000);
  const lines = [
    ...out,
    "",
    "TARGETS",
    ...(targets.length === 0 ? ["  (none in this section: its figures are read, not judged)"] : []),
    ...targets.map(
      (target) => `  ${(target.pass === null ? "UNJUDGED" : target.pass ? "PASS" : "MISS").padEnd(8)}  ${target.name.padEnd(42)} ${target.detail}`,
    ),
    "",
    `total ${totalSeconds} s`,
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
  mkdirSync(path.join(ROOT, "test-results"), { recursive: true });
  writeFileSync(
    path.join(ROOT, "test-results/bench.json"),
    `${JSON.stringify({ generatedAt: new Date().toISOString(), node: process.version, cpus: os.cpus().length, ...report, targets, totalSeconds }, null, 2)}\n`,
  );
  log("wrote test-results/bench.json");
  if (STRICT && targets.some((target) => target.pass !== true)) process.exitCode = 2;
}

/**
 * The throughput table (each row's median req/s, p50, p99, errors, and its ratio to the fastest
 * peer on the same body and to bare node:http), the peers that were not measured and why, and
 * the targets judged on them.
 * @param {Scenario[]} scenarioList every row, those of peers not measured too
 * @param {Map<string, Outcome[]>} outcomes
 */
function throughputSection(scenarioList, outcomes) {
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
      detail: `${int(list.rps)} req/s vs ${int(send.rps)}: ${ratio(list.rps, send.rps)}`,
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
              detail: `${int(redisRow.rps)} req/s vs ${int(memoryRow.rps)}: ${ratio(redisRow.rps, memoryRow.rps)}`,
            },
      );
    }
  }
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

/**
 * Installs (first time) and readies the peers, then asks each server once what it responds with.
 * @returns {Promise<{ peers: Scenario[], responses: Awaited<ReturnType<typeof probeResponses>> }>}
 */
async function peersAndResponses() {
  const peers = peerScenarios(await preparePeers(tempDir, log));
  const asked = [
    ...SCENARIOS.filter((scenario) => ["send_valid", "baseline_http", "baseline_validator"].includes(scenario.id)),
    ...peers.filter((p) => p.peer === "valid"),
  ];
  const responses = await probeResponses(asked);
  for (const line of responseLines(responses)) log(line);
  return { peers, responses };
}

/** BENCH_ONLY=peers: sendmock's two send rows and every peer, round-robin: a quick look at the ratios. */
async function peersOnly() {
  tempDir = mkdtempSync(path.join(os.tmpdir(), "sendmock-bench-"));
  const began = performance.now();
  const { peers, responses } = await peersAndResponses();
  const scenarioList = [...SCENARIOS.filter((scenario) => PEER_SECTION_IDS.includes(scenario.id)), ...peers];
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

/** BENCH_ONLY=stores: the memory store's send and list beside the redis store's, round-robin, and the two redis targets. */
async function storesOnly() {
  tempDir = mkdtempSync(path.join(os.tmpdir(), "sendmock-bench-"));
  const began = performance.now();
  benchRedis = await startBenchRedis();
  if (benchRedis === undefined) throw new Error("BENCH_ONLY=stores needs redis-server on the PATH (apt-get install redis-server)");
  const scenarioList = SCENARIOS.filter((scenario) => STORE_SECTION_IDS.includes(scenario.id));
  log(
    `stores only: ${RUNS} run(s) x ${scenarioList.length} scenarios x ${DURATION} s (+${WARMUP} s warm-up), ${CONNECTIONS} connections; node ${process.version}, ${os.cpus().length} cores`,
  );
  const outcomes = await roundRobin(scenarioList);
  const section = throughputSection(scenarioList, outcomes);
  const redisTargets = section.targets.filter((target) => target.name.startsWith("redis store"));
  finish(
    [
      "",
      `sendmock bench, stores: ${RUNS} run(s) per scenario, ${DURATION} s each (+${WARMUP} s warm-up), ${CONNECTIONS} connections, pipelining 1; node ${process.version}, ${os.cpus().length} cores`,
      "",
      ...section.lines,
    ],
    redisTargets,
    { settings: { durationS: DURATION, runs: RUNS, warmupS: WARMUP, connections: CONNECTIONS }, ...section.report },
    began,
  );
}

/** The devices section's own arguments: the bench's way to measure, lent to devices.mjs. */
const deviceHelpers = () => ({ runs: RUNS, log, measure, fill, listMessages, configWithCapacity, validBody: VALID_BODY, sendHeaders: SEND_HEADERS, tempDir });

/** BENCH_ONLY=devices: each speed device with it and without. */
async function devicesOnly() {
  tempDir = mkdtempSync(path.join(os.tmpdir(), "sendmock-bench-"));
  const began = performance.now();
  log(`devices only: ${RUNS} run(s) of each load, ${DURATION} s each (+${WARMUP} s warm-up); node ${process.version}, ${os.cpus().length} cores`);
  const devices = await measureDevices(deviceHelpers());
  finish(["", ...deviceLines(devices, RUNS)], [], { devices }, began);
}

/** The scenarios of the log section: the default text log, the JSON log, and --quiet to compare them with. */
const LOG_SCENARIOS = ["send_valid", "send_valid_log_json", "send_valid_quiet"];

/**
 * What the request log costs, against the same send with --quiet: the median req/s and the
 * server's CPU time per send of the runs, and the CPU of one line measured alone as a share of a
 * quiet send's. That share is what the target judges: on the shared 2-core machine one run's
 * req/s moved by 2x, and its CPU per send by 1.5x, with the other work there; one line's CPU on
 * its own moved by a few percent.
 * @param {Map<string, Outcome[]>} outcomes
 * @param {{ text: number, json: number }} lineCpuUs CPU per log line, measured alone
 */
function logSection(outcomes, lineCpuUs) {
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
async function logLineCpuUs(format) {
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

/** BENCH_ONLY=log: the valid send with the text log, the JSON log and --quiet, round-robin. */
async function logOnly() {
  const began = performance.now();
  const scenarios = SCENARIOS.filter((scenario) => LOG_SCENARIOS.includes(scenario.id));
  log(
    `log only: ${RUNS} run(s) x ${scenarios.length} scenarios x ${DURATION} s (+${WARMUP} s warm-up), ${CONNECTIONS} connections; node ${process.version}, ${os.cpus().length} cores`,
  );
  /** @type {Map<string, Outcome[]>} */
  const outcomes = new Map(scenarios.map((scenario) => [scenario.id, []]));
  for (let run = 1; run <= RUNS; run += 1) {
    for (const scenario of scenarios) {
      outcomes.get(scenario.id)?.push(await measure(scenario, run));
      await sleep(SETTLE_MS);
    }
  }
  const section = logSection(outcomes, { text: await logLineCpuUs("text"), json: await logLineCpuUs("json") });
  finish(["", ...section.lines], section.targets, section.report, began);
}

/** POST /send with one webhook may be at most this much slower than without (issue 16, item 7). */
const WEBHOOK_MAX_SLOWDOWN = 0.1;

/**
 * A config file with one webhook to `receiverUrl` and lifecycle steps 100 ms apart, so that
 * events fall due, and are delivered, while the sends go on.
 * @param {string} receiverUrl
 */
function configWithWebhook(receiverUrl) {
  const file = path.join(tempDir, "webhook.yaml");
  writeFileSync(file, `lifecycle: { step_ms: 100 }\nwebhooks: [{ url: "${receiverUrl}" }]\n`);
  return file;
}

/**
 * BENCH_ONLY=webhooks: POST /send with one webhook configured (a bare node:http receiver on
 * loopback, in a child of its own) against the same send without, both --quiet, round-robin.
 */
async function webhooksOnly() {
  tempDir = mkdtempSync(path.join(os.tmpdir(), "sendmock-bench-"));
  const began = performance.now();
  const receiver = await baselineHttp();
  const load = { method: "POST", path: "/send", headers: SEND_HEADERS, body: VALID_BODY, expectStatus: 200 };
  try {
    // The same step for both: only the webhook differs.
    const stepOnly = path.join(tempDir, "steps.yaml");
    writeFileSync(stepOnly, "lifecycle: { step_ms: 100 }\n");
    const scenarios = [
      { id: "send_without_webhook", label: "sendmock POST /send, --quiet, no webhook", start: () => sendmock(["--quiet", "--config", stepOnly]), load },
      {
        id: "send_with_webhook",
        label: "sendmock POST /send, --quiet, one webhook (loopback receiver)",
        start: () => sendmock(["--quiet", "--config", configWithWebhook(`${receiver.url}/send`)]),
        prepare: async (/** @type {string} */ url) => {
          // A delivery that succeeds before the run: the receiver is reachable and responds with a 2xx.
          await fetch(`${url}/send`, { method: "POST", headers: SEND_HEADERS, body: VALID_BODY });
          await fetch(`${url}/_mock/clock`, { method: "POST", headers: { "content-type": "application/json" }, body: '{"advance_ms": 1000}' });
          const { deliveries } = /** @type {{ deliveries: { status: number | null }[] }} */ (
            await (await fetch(`${url}/_mock/webhooks/deliveries?limit=1`)).json()
          );
          if (deliveries[0]?.status !== 200) throw new Error(`the webhook receiver was not reached before the run: ${JSON.stringify(deliveries)}`);
        },
        load,
      },
    ];
    log(
      `webhooks only: ${RUNS} run(s) x 2 scenarios x ${DURATION} s (+${WARMUP} s warm-up), ${CONNECTIONS} connections; node ${process.version}, ${os.cpus().length} cores`,
    );
    /** @type {Map<string, Outcome[]>} */
    const outcomes = new Map(scenarios.map((scenario) => [scenario.id, []]));
    for (let run = 1; run <= RUNS; run += 1) {
      for (const scenario of scenarios) {
        outcomes.get(scenario.id)?.push(await measure(/** @type {Scenario} */ (scenario), run));
        await sleep(SETTLE_MS);
      }
    }
    const withoutRuns = outcomes.get("send_without_webhook") ?? [];
    const withRuns = outcomes.get("send_with_webhook") ?? [];
    const without = median(withoutRuns.map((o) => o.rps));
    const withHook = median(withRuns.map((o) => o.rps));
    // Judged on the ratio within each round-robin pair, then the median: the two servers of one
    // pair ran seconds apart, while this machine's throughput drifts by ±20% from minute to minute.
    const share = median(withRuns.map((o, index) => o.rps / (withoutRuns[index]?.rps ?? Number.NaN)));
    const cpuWithout = median(withoutRuns.map((o) => o.serverCpuUsPerRequest));
    const cpuWith = median(withRuns.map((o) => o.serverCpuUsPerRequest));
    const rows = [
      ["scenario", `req/s (median of ${RUNS})`, "vs no webhook (median of pairs)", "server CPU µs/send", "vs no webhook"],
      ["no webhook", int(without), "1.000x", int(cpuWithout), "1.000x"],
      ["one webhook", int(withHook), `${share.toFixed(3)}x`, int(cpuWith), `${(cpuWith / cpuWithout).toFixed(3)}x`],
    ];
    const targets = [
      {
        name: `send with a webhook >= ${(1 - WEBHOOK_MAX_SLOWDOWN).toFixed(1)} x without`,
        pass: share >= 1 - WEBHOOK_MAX_SLOWDOWN,
        detail: `${share.toFixed(3)}x, the median of ${RUNS} round-robin pairs (medians ${int(withHook)} vs ${int(without)} req/s)`,
      },
    ];
    finish(
      ["", "POST /send with one webhook configured vs without (lifecycle step 100 ms, receiver on loopback)", table(rows)],
      targets,
      { webhooks: { without, withWebhook: withHook, ratio: share, serverCpuUsPerSend: { without: cpuWithout, withWebhook: cpuWith } } },
      began,
    );
  } finally {
    await stopServer(receiver);
  }
}

/** GET /_mock/messages?q= over the memory store's 10k messages must respond at least this often (issue 18, item 1). */
const SEARCH_MIN_RPS = 500;
/** A token sent in one message's data only, so that a search that scanned would read all 10k messages' text to find one. */
const SEARCH_TOKEN = "zanzibar7f3k";

/**
 * BENCH_ONLY=search: `q` over 10k captured messages on the memory store, a token that one of
 * them holds, limit 50, each run paired with one of the validator baseline. The word index
 * offers the one message filed under a word holding the token; a scan would read all 10k.
 */
async function searchOnly() {
  tempDir = mkdtempSync(path.join(os.tmpdir(), "sendmock-bench-"));
  const began = performance.now();
  /** @type {Scenario} */
  const scenario = {
    id: "search_10k",
    label: "sendmock GET /_mock/messages?q= (10k captured, one match, limit 50)",
    start: () => sendmock(["--quiet", "--config", configWithCapacity(2 * LIST_FILL)]),
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
  const baseline = SCENARIOS.find((candidate) => candidate.id === "baseline_validator");
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
    await sleep(SETTLE_MS);
    baselineRuns.push(await measure(baseline, run));
    await sleep(SETTLE_MS);
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

/** BENCH_ONLY=soak: the soak alone, and a report that holds only it. */
async function soakOnly() {
  if (SOAK_SECONDS === 0) throw new Error("BENCH_ONLY=soak with BENCH_SOAK_SECONDS=0 leaves nothing to run");
  const began = performance.now();
  log(`soak only: ${SOAK_SECONDS} s, ${CONNECTIONS} connections; node ${process.version}, ${os.cpus().length} cores`);
  const soak = await measureSoak();
  finish(["", ...soakLines(soak)], soakTargets(soak), { settings: { connections: CONNECTIONS, pipelining: 1, soakSeconds: SOAK_SECONDS }, soak }, began);
}

/** BENCH_ONLY=memory: the memory section alone (default heap, then the capped one), and the memory target. */
async function memoryOnly() {
  tempDir = mkdtempSync(path.join(os.tmpdir(), "sendmock-bench-"));
  const began = performance.now();
  log(`memory only; node ${process.version}, ${os.cpus().length} cores`);
  const memory = await measureMemory();
  await sleep(SETTLE_MS);
  log(`memory with node ${HEAP_CAP_FLAG}`);
  const capped = await measureMemory([HEAP_CAP_FLAG]).catch((/** @type {unknown} */ error) => ({
    failed: error instanceof Error ? error.message.split("\n")[0] : String(error),
  }));
  const lines = [memory.at10k, memory.at100k].map(
    (point) =>
      `memory at ${int(point.messages)} messages: RSS ${mb(point.rssBytes)} (peak ${mb(point.peakRssBytes)}), JSON ${mb(point.jsonBytes)} (${int(point.jsonBytesPerMessage)} B/message), target 3 x JSON + 100 MB = ${mb(point.targetBytes)}`,
  );
  lines.push(
    "at100k" in capped
      ? `memory at ${int(capped.at100k.messages)} messages with node ${HEAP_CAP_FLAG}: RSS ${mb(capped.at100k.rssBytes)} (peak ${mb(capped.at100k.peakRssBytes)})`
      : `memory with node ${HEAP_CAP_FLAG}: FAILED (${capped.failed})`,
  );
  const m100 = memory.at100k;
  const target = {
    name: "memory <= 3 x JSON + 100 MB at 100k",
    pass: m100.rssBytes <= m100.targetBytes,
    detail: `RSS ${mb(m100.rssBytes)} vs ${mb(m100.targetBytes)} (3 x ${mb(m100.jsonBytes)} + 100 MB)`,
  };
  finish(["", ...lines], [target], { memory, memoryHeapCapped: { nodeFlag: HEAP_CAP_FLAG, ...capped } }, began);
}

async function startupOnly() {
  const began = performance.now();
  log(`startup only; node ${process.version}, ${os.cpus().length} cores`);
  const startup = await measureStartupSection(log);
  finish(["", ...startupLines(startup)], startupTargets(startup), { startup }, began);
}

async function main() {
  tempDir = mkdtempSync(path.join(os.tmpdir(), "sendmock-bench-"));
  const began = performance.now();
  benchRedis = await startBenchRedis();
  const { peers, responses } = await peersAndResponses();
  // The redis rows stay in the list without a redis-server, so that their targets say why they were not judged.
  const scenarioList = [...SCENARIOS, ...peers].map((scenario) =>
    benchRedis === undefined && scenario.redis === true ? { ...scenario, notMeasured: "no redis-server on the PATH (apt-get install redis-server)" } : scenario,
  );
  const scenariosToRun = scenarioList.filter((scenario) => scenario.notMeasured === undefined);
  log(
    `${RUNS} run(s) x ${scenariosToRun.length} scenarios x ${DURATION} s (+${WARMUP} s warm-up), ${CONNECTIONS} connections; node ${process.version}, ${os.cpus().length} cores`,
  );

  const outcomes = await roundRobin(scenariosToRun);
  log("startup");
  const startup = await measureStartupSection(log);
  await sleep(SETTLE_MS);
  log("memory");
  const memory = await measureMemory();
  await sleep(SETTLE_MS);
  log(`memory with node ${HEAP_CAP_FLAG}`);
  // A capped heap that runs out is a finding to print, not a reason to lose the rest of the run.
  const memoryHeapCapped = await measureMemory([HEAP_CAP_FLAG]).catch((/** @type {unknown} */ error) => {
    log(`memory with node ${HEAP_CAP_FLAG} failed: ${error instanceof Error ? error.message : String(error)}`);
    return { failed: error instanceof Error ? error.message.split("\n")[0] : String(error) };
  });
  let soak = null;
  if (SOAK_SECONDS > 0) {
    await sleep(SETTLE_MS);
    log(`soak (${SOAK_SECONDS} s)`);
    soak = await measureSoak();
  }
  await sleep(SETTLE_MS);
  log("devices");
  const devices = await measureDevices(deviceHelpers());

  benchRedis?.stop();
  const throughput = throughputSection(scenarioList, outcomes);
  const list = throughput.byId.list_10k;
  const m100 = memory.at100k;
  const targets = [
    ...throughput.targets,
    {
      name: "inspection list (10k) >= 2000 req/s",
      pass: (list?.rps ?? 0) >= 2000,
      detail: `${int(list?.rps ?? 0)} req/s vs 2,000`,
    },
    ...startupTargets(startup),
    {
      name: "memory <= 3 x JSON + 100 MB at 100k",
      pass: m100.rssBytes <= m100.targetBytes,
      detail: `RSS ${mb(m100.rssBytes)} vs ${mb(m100.targetBytes)} (3 x ${mb(m100.jsonBytes)} + 100 MB)`,
    },
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
    ...[memory.at10k, memory.at100k].map(
      (point) =>
        `memory at ${int(point.messages)} messages: RSS ${mb(point.rssBytes)} (peak ${mb(point.peakRssBytes)}), JSON ${mb(point.jsonBytes)} (${int(point.jsonBytesPerMessage)} B/message), target 3 x JSON + 100 MB = ${mb(point.targetBytes)}`,
    ),
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
  finish(out, targets, report, began);
}

process.on("exit", () => {
  killAll();
  benchRedis?.stop();
});
for (const signal of /** @type {const} */ (["SIGINT", "SIGTERM"])) {
  process.once(signal, () => {
    log(`${signal}: stopping the servers`);
    killAll();
    benchRedis?.stop();
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
          ? logOnly()
          : ONLY === "webhooks"
            ? webhooksOnly()
            : ONLY === "search"
              ? searchOnly()
              : ONLY === "peers"
                ? peersOnly()
                : ONLY === "stores"
                  ? storesOnly()
                  : ONLY === "devices"
                    ? devicesOnly()
                    : ONLY === "memory"
                      ? memoryOnly()
                      : main());
} catch (error) {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
} finally {
  killAll();
  benchRedis?.stop();
  if (tempDir) rmSync(tempDir, { recursive: true, force: true });
}
