// The bench's devices section (BENCH_ONLY=devices): what each speed device of the core earns, measured with it and without, so that each stays or goes on a figure (issue 30, item 5).

import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { CLI, median, ROOT, startServer, stopServer } from "./lib/servers.mjs";
import { untilQuiet } from "./lib/settle.mjs";

const STARTUP_SAMPLES = 5;
const SEARCH_FILL = 10_000;
/** One message holds both tokens: the first is a word the index files it under, the second has no run of 2 characters, which the index cannot narrow, so it gets a response by reading every message's text. */
const INDEXED_TOKEN = "zanzibar7f3k";
const SCAN_TOKEN = "x-7-q";
const MODEL_ROUNDS = 5;
const MODEL_ITERATIONS = 20_000;

/**
 * A copy of the package as it ships (package.json, dist/, openapi/, fixtures/, src/ui/, with the
 * project's node_modules linked) in `tempDir/name`, for a device to be taken out of. A copy
 * rather than changing the real files: an interrupted bench leaves the real dist/ whole. Copied,
 * not linked: node follows a link to its target, and the package root is found from where the
 * code really is.
 * @param {string} tempDir
 * @param {string} name
 * @returns {{ copy: string, bin: string }} the copy's folder and its CLI
 */
function copyOfPackage(tempDir, name) {
  const copy = path.join(tempDir, name);
  mkdirSync(copy, { recursive: true });
  for (const part of ["package.json", "dist", "openapi", "fixtures", "src/ui"]) cpSync(path.join(ROOT, part), path.join(copy, part), { recursive: true });
  symlinkSync(path.join(ROOT, "node_modules"), path.join(copy, "node_modules"));
  return { copy, bin: path.join(copy, path.relative(ROOT, CLI)) };
}

/**
 * A copy of the package without what `npm run build` prepares ahead: the files under dist/ that
 * package.json's `files` lists by name. A mock then finds none of them and compiles, checks and
 * parses at run time, as its fallbacks do.
 * @param {string} tempDir
 */
function packageWithoutBuiltAhead(tempDir) {
  const { copy, bin } = copyOfPackage(tempDir, "no-built-ahead");
  const pkg = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8"));
  const builtAhead = /** @type {string[]} */ (pkg.files).filter((file) => /^dist\/[^/]+\.(cjs|json)$/.test(file));
  for (const file of builtAhead) rmSync(path.join(copy, file));
  if (builtAhead.some((file) => existsSync(path.join(copy, file))) || builtAhead.length === 0)
    throw new Error(`devices: the copy without built-ahead files is wrong (package.json lists ${JSON.stringify(builtAhead)})`);
  return { bin, removed: builtAhead };
}

/** The one line of the built CLI that holds a /send response until the end of its turn (src/domain/turns.ts). */
const TURN_END_WAIT = "await endOfTurn();";

/**
 * A copy of the package as it ships whose POST /send writes each response at once, as it did
 * before device (d): the built CLI with its one wait for the end of the turn taken out.
 * @param {string} tempDir
 */
function packageWritingAtOnce(tempDir) {
  const { bin } = copyOfPackage(tempDir, "writing-at-once");
  const binDir = path.dirname(bin);
  let waits = 0;
  for (const file of readdirSync(binDir).filter((name) => name.endsWith(".js"))) {
    const source = readFileSync(path.join(binDir, file), "utf8");
    const found = source.split(TURN_END_WAIT).length - 1;
    if (found === 0) continue;
    waits += found;
    writeFileSync(path.join(binDir, file), source.replaceAll(TURN_END_WAIT, ""));
  }
  if (waits !== 1) throw new Error(`devices: expected the built CLI to hold "${TURN_END_WAIT}" once, found it ${waits} times`);
  return { bin };
}

/**
 * @typedef {object} Helpers what run.mjs lends this section, so that both measure alike
 * @property {number} runs
 * @property {(line: string) => void} log
 * @property {(scenario: any, run: number) => Promise<any>} measure
 * @property {(url: string, count: number) => Promise<unknown>} fill
 * @property {(url: string, query: string) => Promise<{ messages: any[], total: number }>} listMessages
 * @property {(capacity: number) => string} configWithCapacity
 * @property {string} validBody
 * @property {Record<string, string>} sendHeaders
 * @property {string} tempDir
 */

/**
 * Device (a), startup: spawn -> "listening", then the first POST /send's own latency, with the
 * built-ahead files and without, alternating, each in a fresh process.
 * @param {string} bin
 * @param {Helpers} h
 */
async function startupOf(bin, h) {
  const began = performance.now();
  const server = await startServer("sendmock", [bin, "serve", "--port", "0"]);
  const listeningMs = performance.now() - began;
  try {
    const sent = performance.now();
    const response = await fetch(`${server.url}/send`, { method: "POST", headers: h.sendHeaders, body: h.validBody });
    await response.text();
    const firstSendMs = performance.now() - sent;
    if (response.status !== 200) throw new Error(`devices: the first POST /send of ${bin} answered ${response.status}`);
    return { listeningMs, firstSendMs };
  } finally {
    await stopServer(server);
  }
}

/**
 * Device (b) cannot be switched off from outside the source, so it is measured as a model: the
 * same message, the two events a default send records, applied as the memory outbox applies them
 * (its JSON text spliced from the events' head and the rest, which never changes) and as it would
 * without the device (parse the text, change it, serialize it again). CPU µs per send, medians.
 * @param {any} captured a message as GET /_mock/messages responds to it, events and all
 */
function splitTextModel(captured) {
  const events = /** @type {any[]} */ (captured.events);
  const base = { ...captured, status: "queued", events: [] };
  const statuses = events.map((_, index) => (index === events.length - 1 ? captured.status : "sent"));
  const headOf = (/** @type {string} */ id, /** @type {string} */ status, /** @type {string} */ eventsJson) =>
    `{"id":${JSON.stringify(id)},"status":${JSON.stringify(status)},"events":${eventsJson}`;
  const spliced = () => {
    const json = JSON.stringify(base);
    const head = headOf(base.id, base.status, "[]");
    let rest = json.startsWith(head) ? json.slice(head.length) : "";
    let eventsJson = "[]";
    let text = json;
    events.forEach((event, index) => {
      const eventJson = JSON.stringify(event);
      eventsJson = eventsJson === "[]" ? `[${eventJson}]` : `${eventsJson.slice(0, -1)},${eventJson}]`;
      const newHead = headOf(base.id, /** @type {string} */ (statuses[index]), eventsJson);
      text = `${newHead}${rest}`;
      rest = text.slice(newHead.length);
    });
    return text;
  };
  const roundTrip = () => {
    let text = JSON.stringify(base);
    events.forEach((event, index) => {
      const message = JSON.parse(text);
      message.events.push(event);
      message.status = statuses[index];
      text = JSON.stringify(message);
    });
    return text;
  };
  if (spliced() !== roundTrip()) throw new Error("devices: the two ways of recording events disagree on the text; the model no longer matches the outbox");
  const timeOf = (/** @type {() => string} */ work) => {
    const samples = [];
    let sink = 0;
    for (let round = 0; round < MODEL_ROUNDS; round += 1) {
      const started = process.cpuUsage();
      for (let i = 0; i < MODEL_ITERATIONS; i += 1) sink += work().length;
      const used = process.cpuUsage(started);
      samples.push((used.user + used.system) / MODEL_ITERATIONS);
    }
    if (sink === 0) throw new Error("unreachable");
    return median(samples);
  };
  timeOf(spliced);
  timeOf(roundTrip);
  return { events: events.length, messageBytes: Buffer.byteLength(JSON.stringify(captured)), splicedUs: timeOf(spliced), roundTripUs: timeOf(roundTrip) };
}

/**
 * The devices section: (a) the build-time caches, (b) the outbox's split JSON text (a model, see
 * splitTextModel), (c) the word index, (d) /send's responses at the end of the turn. Runs round-robin within each device.
 * @param {Helpers} h
 */
export async function measureDevices(h) {
  const { runs, log } = h;
  const without = packageWithoutBuiltAhead(h.tempDir);
  log(`devices: a copy of the package without ${without.removed.join(", ")}`);
  const atOnce = packageWritingAtOnce(h.tempDir);
  log(`devices: a copy of the package whose /send writes each response at once`);

  // (a) startup and first send, alternating.
  /** @type {{ with: { listeningMs: number, firstSendMs: number }[], without: { listeningMs: number, firstSendMs: number }[] }} */
  const startup = { with: [], without: [] };
  for (let sample = 1; sample <= STARTUP_SAMPLES; sample += 1) {
    startup.with.push(await startupOf(CLI, h));
    startup.without.push(await startupOf(without.bin, h));
    log(
      `devices: startup sample ${sample}/${STARTUP_SAMPLES}: with ${JSON.stringify(startup.with.at(-1), (_, v) => (typeof v === "number" ? Math.round(v) : v))}, without ${JSON.stringify(startup.without.at(-1), (_, v) => (typeof v === "number" ? Math.round(v) : v))}`,
    );
  }
  const validLoad = { method: "POST", path: "/send", headers: h.sendHeaders, body: h.validBody, expectStatus: 200 };
  const searched = JSON.stringify({
    ...JSON.parse(h.validBody),
    data: { ...JSON.parse(h.validBody).data, company: `Looms of ${INDEXED_TOKEN} ${SCAN_TOKEN}` },
  });
  /** @param {string} url @param {boolean} searchOnce */
  const fillForSearch = async (url, searchOnce) => {
    await h.fill(url, SEARCH_FILL - 1);
    const sent = await fetch(`${url}/send`, { method: "POST", headers: h.sendHeaders, body: searched });
    if (sent.status !== 200) throw new Error(`devices: the searched message was answered ${sent.status}`);
    if (!searchOnce) return;
    for (const token of [INDEXED_TOKEN, SCAN_TOKEN]) {
      const { total } = await h.listMessages(url, `q=${token}&limit=1`);
      if (total !== 1) throw new Error(`devices: expected q=${token} in 1 message, found ${total}`);
    }
  };
  const capacityConfig = () => h.configWithCapacity(2 * SEARCH_FILL);
  /** @type {{ id: string, label: string, device: string, start: () => Promise<import("./lib/servers.mjs").Server>, prepare?: (url: string) => Promise<void>, load: any }[]} */
  const scenarios = [
    {
      id: "send_built_ahead",
      label: "(a) POST /send, built-ahead files",
      device: "a",
      start: () => startServer("sendmock", [CLI, "serve", "--port", "0"]),
      load: validLoad,
    },
    {
      id: "send_no_built_ahead",
      label: "(a) POST /send, none (run-time fallbacks)",
      device: "a",
      start: () => startServer("sendmock", [without.bin, "serve", "--port", "0"]),
      load: validLoad,
    },
    {
      id: "search_indexed",
      label: `(c) GET /_mock/messages?q=${INDEXED_TOKEN} (10k, word index)`,
      device: "c",
      start: () => startServer("sendmock", [CLI, "serve", "--port", "0", "--quiet", "--config", capacityConfig()]),
      prepare: (url) => fillForSearch(url, true),
      load: { method: "GET", path: `/_mock/messages?q=${INDEXED_TOKEN}&limit=50`, expectStatus: 200 },
    },
    {
      id: "search_scan",
      label: `(c) GET /_mock/messages?q=${SCAN_TOKEN} (10k, scan)`,
      device: "c",
      start: () => startServer("sendmock", [CLI, "serve", "--port", "0", "--quiet", "--config", capacityConfig()]),
      prepare: (url) => fillForSearch(url, true),
      load: { method: "GET", path: `/_mock/messages?q=${SCAN_TOKEN}&limit=50`, expectStatus: 200 },
    },
    {
      id: "send_index_live",
      label: "(c) POST /send at 10k, searched once (index kept up)",
      device: "c",
      start: () => startServer("sendmock", [CLI, "serve", "--port", "0", "--quiet", "--config", capacityConfig()]),
      prepare: (url) => fillForSearch(url, true),
      load: validLoad,
    },
    {
      id: "send_index_none",
      label: "(c) POST /send at 10k, never searched (no index)",
      device: "c",
      start: () => startServer("sendmock", [CLI, "serve", "--port", "0", "--quiet", "--config", capacityConfig()]),
      prepare: (url) => fillForSearch(url, false),
      load: validLoad,
    },
    {
      id: "send_turn_end",
      label: "(d) POST /send, responses written at the end of the turn",
      device: "d",
      start: () => startServer("sendmock", [CLI, "serve", "--port", "0"]),
      load: validLoad,
    },
    {
      id: "send_at_once",
      label: "(d) POST /send, each response written at once",
      device: "d",
      start: () => startServer("sendmock", [atOnce.bin, "serve", "--port", "0"]),
      load: validLoad,
    },
  ];
  /** @type {Map<string, any[]>} */
  const outcomes = new Map(scenarios.map((scenario) => [scenario.id, []]));
  for (let run = 1; run <= runs; run += 1) {
    for (const scenario of scenarios) {
      outcomes.get(scenario.id)?.push(await h.measure(scenario, run));
      await untilQuiet();
    }
  }

  // (b) the model, on a message as the server keeps it after its default events.
  const server = await startServer("sendmock", [CLI, "serve", "--port", "0", "--quiet"]);
  let model;
  try {
    await fetch(`${server.url}/send`, { method: "POST", headers: h.sendHeaders, body: h.validBody }).then((response) => response.text());
    await fetch(`${server.url}/_mock/clock`, { method: "POST", headers: { "content-type": "application/json" }, body: '{"advance_ms": 60000}' });
    const { messages } = await h.listMessages(server.url, "limit=1");
    model = splitTextModel(messages[0]);
  } finally {
    await stopServer(server);
  }

  const summary = Object.fromEntries(
    scenarios.map((scenario) => {
      const list = outcomes.get(scenario.id) ?? [];
      return [
        scenario.id,
        {
          label: scenario.label,
          rps: median(list.map((o) => o.rps)),
          p99Ms: median(list.map((o) => o.p99)),
          cpuUsPerRequest: median(list.map((o) => o.serverCpuUsPerRequest ?? Number.NaN)),
          errors: list.reduce((sum, o) => sum + o.errors + o.unexpected, 0),
        },
      ];
    }),
  );
  const startupMedians = {
    with: { listeningMs: median(startup.with.map((s) => s.listeningMs)), firstSendMs: median(startup.with.map((s) => s.firstSendMs)) },
    without: { listeningMs: median(startup.without.map((s) => s.listeningMs)), firstSendMs: median(startup.without.map((s) => s.firstSendMs)) },
  };
  return { startup: { samples: startup, medians: startupMedians, removed: without.removed }, throughput: summary, splitTextModel: model };
}

/** @param {Awaited<ReturnType<typeof measureDevices>>} devices @param {number} runs */
export function deviceLines(devices, runs) {
  const { startup, throughput: t, splitTextModel: m } = devices;
  const ms = (/** @type {number} */ value) => `${value.toFixed(1)} ms`;
  const int = (/** @type {number} */ value) => Math.round(value).toLocaleString("en-US");
  const row = (/** @type {string} */ id) => {
    const s = /** @type {any} */ (t)[id];
    return `  ${s.label.padEnd(62)} ${int(s.rps).padStart(7)} req/s  p99 ${String(s.p99Ms).padStart(4)} ms  server CPU ${int(s.cpuUsPerRequest).padStart(6)} µs/request  errors ${s.errors}`;
  };
  const w = startup.medians.with;
  const wo = startup.medians.without;
  const sendCpu = t.send_built_ahead?.cpuUsPerRequest ?? Number.NaN;
  const saved = m ? m.roundTripUs - m.splicedUs : Number.NaN;
  return [
    `devices: each speed device of the core with it and without (medians: ${STARTUP_SAMPLES} cold starts; ${runs} run(s) of each load, round-robin)`,
    `(a) build-time caches (${startup.removed.join(", ")}) vs their run-time fallbacks`,
    `  spawn -> "listening"              with ${ms(w.listeningMs).padStart(9)}   without ${ms(wo.listeningMs).padStart(9)}   (${(wo.listeningMs / w.listeningMs).toFixed(2)}x)`,
    `  first POST /send after listening  with ${ms(w.firstSendMs).padStart(9)}   without ${ms(wo.firstSendMs).padStart(9)}   (${(wo.firstSendMs / w.firstSendMs).toFixed(2)}x)`,
    `  start + first send                with ${ms(w.listeningMs + w.firstSendMs).padStart(9)}   without ${ms(wo.listeningMs + wo.firstSendMs).padStart(9)}   saved ${ms(wo.listeningMs + wo.firstSendMs - w.listeningMs - w.firstSendMs)}`,
    row("send_built_ahead"),
    row("send_no_built_ahead"),
    `(b) the outbox's JSON text split at its head (no switch outside src: measured as a model of recordEvent, ${m?.events ?? "?"} events on a ${int(m?.messageBytes ?? 0)}-byte message)`,
    m
      ? `  spliced (the device) ${m.splicedUs.toFixed(2)} µs per send, parse + serialize ${m.roundTripUs.toFixed(2)} µs: saves ${saved.toFixed(2)} µs, ${((saved / sendCpu) * 100).toFixed(1)}% of a send's ${int(sendCpu)} µs of server CPU`
      : "  not measured",
    `(c) the word index: q over 10k messages, one match, through the index vs a query it cannot narrow (a full scan); and what keeping it up costs a send`,
    row("search_indexed"),
    row("search_scan"),
    `  index vs scan: ${((t.search_indexed?.rps ?? 0) / (t.search_scan?.rps ?? 1)).toFixed(1)}x the req/s, ${int(t.search_indexed?.cpuUsPerRequest ?? 0)} vs ${int(t.search_scan?.cpuUsPerRequest ?? 0)} µs of CPU per search`,
    row("send_index_live"),
    row("send_index_none"),
    `  a send with the index kept up: ${int((t.send_index_live?.cpuUsPerRequest ?? 0) - (t.send_index_none?.cpuUsPerRequest ?? 0))} µs of CPU more per send (${((t.send_index_live?.rps ?? 0) / (t.send_index_none?.rps ?? 1)).toFixed(2)}x the req/s)`,
    `(d) /send's responses written together at the end of each turn of the event loop vs each at once (a copy of the built CLI without the wait)`,
    row("send_turn_end"),
    row("send_at_once"),
    `  at the end of the turn: ${int((t.send_at_once?.cpuUsPerRequest ?? 0) - (t.send_turn_end?.cpuUsPerRequest ?? 0))} µs of CPU less per send (${((t.send_turn_end?.rps ?? 0) / (t.send_at_once?.rps ?? 1)).toFixed(2)}x the req/s)`,
  ];
}
