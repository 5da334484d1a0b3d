// The soak: the live heap of a sendmock under full-speed sends for BENCH_SOAK_SECONDS, its
// slope after warm-up and the verdict flat or growing, and the section BENCH_ONLY=soak.

import os from "node:os";
import path from "node:path";
import { CONNECTIONS, log, MB, SEND_HEADERS, SOAK_SECONDS, VALID_BODY } from "./lib/knobs.mjs";
import { fire } from "./lib/load.mjs";
import { finish, int, mb, percent, table } from "./lib/report.mjs";
import { ROOT, startServer, stopServer } from "./lib/servers.mjs";

/** @typedef {import("./lib/load.mjs").Outcome} Outcome */

// The soak fills the outbox (capacity 10,000) in its first seconds; the heap is judged after
// this share of the run, when the outbox and the journal are full and every send drops one.
const SOAK_WARMUP_SHARE = 1 / 3;
const SOAK_CAPACITY = 10_000;
// "Flat": after warm-up, the live heap's fitted growth over the rest of the run stays under
// this share of its mean. With nothing leaking it still moves by about 2%: the journal trims
// itself in batches of capacity/8 entries. 5% is clear of that, and at 2,000 sends/s over 40 s
// (some 55 MB live) it still flags a leak of about 35 bytes per send.
const SOAK_FLAT_GROWTH_SHARE = 0.05;
// --expose-gc: the soak server then reports the live heap, after a full collection, every 5 s.
const soakServer = () => startServer("sendmock-soak", ["--expose-gc", path.join(ROOT, "test/bench/soak-server.mjs"), String(SOAK_CAPACITY)]);

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
export async function measureSoak() {
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

/** @param {ReturnType<typeof analyzeSoak>} soak */
export function soakLines(soak) {
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
export function soakTargets(soak) {
  return [
    {
      name: `soak live heap growth < ${percent(soak.flatBelowShareOfMean)}`,
      pass: soak.verdict === "flat",
      detail: `${percent(soak.growthShareOfMean)} (${soak.slopeMbPerMin.toFixed(2)} MB/min over the last ${Math.round(soak.seconds - soak.warmupS)} s, mean live heap ${mb(soak.meanLiveHeapBytes)})`,
    },
    { name: "no request errors in the soak", pass: soak.errors === 0, detail: `${int(soak.errors)} of ${int(soak.sends)}` },
  ];
}

/** BENCH_ONLY=soak: the soak alone, and a report that holds only it. */
export async function soakOnly() {
  if (SOAK_SECONDS === 0) throw new Error("BENCH_ONLY=soak with BENCH_SOAK_SECONDS=0 leaves nothing to run");
  const began = performance.now();
  log(`soak only: ${SOAK_SECONDS} s, ${CONNECTIONS} connections; node ${process.version}, ${os.cpus().length} cores`);
  const soak = await measureSoak();
  finish(["", ...soakLines(soak)], soakTargets(soak), { settings: { connections: CONNECTIONS, pipelining: 1, soakSeconds: SOAK_SECONDS }, soak }, began);
}
