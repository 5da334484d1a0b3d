// How the bench loads a server: autocannon's runs counted by status, filling the outbox, and
// the measured runs of a scenario, round-robin over scenarios.

import autocannon from "autocannon";
import { CONNECTIONS, DURATION, log, RUNS, SEND_HEADERS, VALID_BODY, WARMUP } from "./knobs.mjs";
import { cpuMsOf, stopServer } from "./servers.mjs";
import { untilIdle, untilQuiet } from "./settle.mjs";

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
 * @property {{ ms: number, cpuUsPerRequest: number, finished: boolean }} [afterLoad] for a scenario that
 *   leaves work due (lifecycle steps): how long the server stayed busy once the load stopped, and
 *   that CPU per response of the run; `finished` false when it was still busy after 60 s
 */

/**
 * @typedef {object} Scenario
 * @property {string} id
 * @property {string} label
 * @property {() => Promise<import("./servers.mjs").Server>} start
 * @property {(url: string) => Promise<void>} [prepare]
 * @property {boolean} [redis] needs the bench's Redis (the row is left out without one)
 * @property {"valid" | "invalid"} [peer] a peer the targets compare with, on the valid or the invalid body
 * @property {string} [notMeasured] why a peer's row has no figures (its install failed)
 * @property {number} [warmupS] seconds of discarded load before each run, when not WARMUP
 * @property {number} [leavesWorkMs] the run leaves work falling due up to this long after it
 *   (each send's lifecycle steps): the server is watched until it idles, and that is reported
 * @property {Load} load
 */

/**
 * Runs autocannon against `url` and counts responses by the status they should have.
 * @param {string} url
 * @param {Load} load
 * @param {{ duration?: number, amount?: number }} length
 * @returns {Promise<Outcome>}
 */
export async function fire(url, load, length) {
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
export async function fill(url, count) {
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
export async function listMessages(url, query) {
  const response = await fetch(`${url}/_mock/messages?${query}`);
  if (response.status !== 200) throw new Error(`GET /_mock/messages?${query}: status ${response.status}`);
  return /** @type {any} */ (await response.json());
}

/** @param {Scenario} scenario @param {number} run */
export async function measure(scenario, run) {
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
    // A run's req/s and CPU count only the work done while it lasted: a store whose lifecycle falls
    // behind the sends leaves part of their cost for after it, and that part is measured here.
    if (scenario.leavesWorkMs !== undefined) {
      const after = await untilIdle(server.pid, scenario.leavesWorkMs);
      outcome.afterLoad = { ms: after.ms, cpuUsPerRequest: (after.cpuMs * 1000) / outcome.requests, finished: after.finished };
    }
    const afterLoad = outcome.afterLoad
      ? `, then busy ${(outcome.afterLoad.ms / 1000).toFixed(1)} s${outcome.afterLoad.finished ? "" : " (still busy)"} after the load, +${outcome.afterLoad.cpuUsPerRequest.toFixed(0)} µs/request`
      : "";
    log(
      `${scenario.id} run ${run}/${RUNS}: ${outcome.rps.toFixed(0)} req/s, server CPU ${outcome.serverCpuUsPerRequest.toFixed(0)} µs/request, p50 ${outcome.p50} ms, p99 ${outcome.p99} ms, statuses ${JSON.stringify(outcome.statuses)}, errors ${outcome.errors}${afterLoad}`,
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
export async function roundRobin(scenarios) {
  /** @type {Map<string, Outcome[]>} */
  const outcomes = new Map(scenarios.map((scenario) => [scenario.id, []]));
  for (let run = 1; run <= RUNS; run += 1) {
    for (const scenario of scenarios) {
      outcomes.get(scenario.id)?.push(await measure(scenario, run));
      await untilQuiet();
    }
  }
  return outcomes;
}
