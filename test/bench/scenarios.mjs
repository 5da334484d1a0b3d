// The throughput table's rows: sendmock's scenarios and the baselines, the peers installed on
// first use (Prism, WireMock), and what each server responds before the runs.

import { INVALID_BODY, LIFECYCLE_SPAN_MS, LIST_FILL, log, SEND_HEADERS, VALID_BODY, WARMUP } from "./lib/knobs.mjs";
import { fill, listMessages } from "./lib/load.mjs";
import { preparePeers } from "./lib/peers.mjs";
import { baselineExpress, baselineHttp, baselineValidator, configWithCapacity, sendmock, sendmockOnRedis } from "./lib/sendmock.mjs";
import { stopServer } from "./lib/servers.mjs";

/** @typedef {import("./lib/load.mjs").Scenario} Scenario */
/** @typedef {import("./lib/sendmock.mjs").BenchRun} BenchRun */

// WireMock runs on the JVM, which compiles its hot code only after thousands of requests: with
// the 1 s warm-up node's servers get, a 3 s run measured it at a fifth of its later rate. A peer
// measured below its best would flatter sendmock, so the JVM gets this much warm-up at least.
const JVM_WARMUP_S = 5;

/** The list rows' preparation (10k messages captured) and load, whichever store keeps them. */
const LIST_RUN = {
  prepare: async (/** @type {string} */ url) => {
    await fill(url, LIST_FILL);
    const { total } = await listMessages(url, "limit=1");
    if (total !== LIST_FILL) throw new Error(`expected ${LIST_FILL} captured messages before the list run, found ${total}`);
  },
  load: { method: "GET", path: "/_mock/messages?to=ada@example.com&limit=50", expectStatus: 200 },
};

/**
 * sendmock's rows and the baselines', their servers started in the run's temp folder and on its Redis.
 * @param {BenchRun} bench
 * @returns {Scenario[]}
 */
export function benchScenarios(bench) {
  return [
    {
      id: "send_valid",
      label: "sendmock POST /send (valid)",
      start: () => sendmock(),
      leavesWorkMs: LIFECYCLE_SPAN_MS,
      load: { method: "POST", path: "/send", headers: SEND_HEADERS, body: VALID_BODY, expectStatus: 200 },
    },
    {
      id: "send_valid_sandbox",
      label: "sendmock POST /send (valid), X-Sendmock-Sandbox",
      start: () => sendmock(),
      load: { method: "POST", path: "/send", headers: { ...SEND_HEADERS, "x-sendmock-sandbox": "bench-worker" }, body: VALID_BODY, expectStatus: 200 },
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
      start: () => sendmock(["--config", configWithCapacity(bench.tempDir, 2 * LIST_FILL)]),
      ...LIST_RUN,
    },
    {
      id: "send_valid_redis",
      label: "sendmock POST /send (valid), redis store",
      redis: true,
      start: () => sendmockOnRedis(bench),
      leavesWorkMs: LIFECYCLE_SPAN_MS,
      load: { method: "POST", path: "/send", headers: SEND_HEADERS, body: VALID_BODY, expectStatus: 200 },
    },
    {
      id: "list_10k_redis",
      label: "sendmock GET /_mock/messages (10k, limit 50), redis store",
      redis: true,
      start: () => sendmockOnRedis(bench, ["--config", configWithCapacity(bench.tempDir, 2 * LIST_FILL)]),
      ...LIST_RUN,
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
    {
      id: "baseline_express",
      label: "bare express 5, one GET route (the /_mock floor)",
      start: baselineExpress,
      load: { method: "GET", path: "/_mock/health", expectStatus: 200 },
    },
  ];
}

/** The scenarios that BENCH_ONLY=stores runs: the memory store's send and list beside the redis store's, and the floor of any /_mock call. */
export const STORE_SECTION_IDS = ["send_valid", "send_valid_redis", "list_10k", "list_10k_redis", "baseline_express"];

/** The scenarios that BENCH_ONLY=peers runs besides the installed peers' own. */
export const PEER_SECTION_IDS = ["send_valid", "send_invalid_recipient", "baseline_http", "baseline_validator", "baseline_validator_invalid"];

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
export function responseLines(responses) {
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

/**
 * Installs (first time) and readies the peers, then asks each server once what it responds with.
 * @param {BenchRun} bench
 * @returns {Promise<{ peers: Scenario[], responses: Awaited<ReturnType<typeof probeResponses>> }>}
 */
export async function peersAndResponses(bench) {
  const peers = peerScenarios(await preparePeers(bench.tempDir, log));
  const asked = [
    ...benchScenarios(bench).filter((scenario) => ["send_valid", "baseline_http", "baseline_validator"].includes(scenario.id)),
    ...peers.filter((p) => p.peer === "valid"),
  ];
  const responses = await probeResponses(asked);
  for (const line of responseLines(responses)) log(line);
  return { peers, responses };
}
