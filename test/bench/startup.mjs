// The bench's startup section: what a test suite, a CI stage and a newcomer wait for. In one run,
// interleaved so machine drift hits each alike: in-process import, first mock and later mocks
// (each its own cold process), and spawn -> first 200 on POST /send for `sendmock serve`,
// `npm start`, the single executable (npm run build:binary) and the express +
// express-openapi-validator baseline.

import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { BINARY, buildBinaryIfStale } from "../../scripts/build-binary.mjs";
import { CLI, freePort, median, ROOT, spawnNode, stopServer } from "./lib/servers.mjs";

const SAMPLES = 5;
const LATER_MOCKS = 10;
const POLL_MS = 5;
const GIVE_UP_MS = 30_000;
const BODY = JSON.stringify({
  to: "ada@example.com",
  template_id: "welcome",
  data: { name: "Ada", company: "Analytical Engines", login_url: "https://app.example.com/login" },
});
const HEADERS = { authorization: "Bearer bench-key-0001", "content-type": "application/json" };

/** POST /send on `port`: its status, or 0 while nothing listens. @param {number} port */
async function trySend(port) {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/send`, { method: "POST", headers: HEADERS, body: BODY });
    await response.text();
    return response.status;
  } catch {
    return 0;
  }
}

/**
 * Milliseconds from spawning `command args` (with `--port P` or a last argument P, as `portArgs`
 * says) to the first 200 on POST /send, polled every 5 ms.
 * @param {string} command
 * @param {(port: number) => string[]} argsFor
 */
async function spawnToFirstSend(command, argsFor) {
  const port = /** @type {number} */ (await freePort());
  const began = performance.now();
  // Its own process group: `npm start` runs node under npm and sh, and all of them must stop.
  const child = spawn(command, argsFor(port), { cwd: ROOT, stdio: ["ignore", "ignore", "pipe"], detached: true });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (/** @type {string} */ chunk) => (stderr = (stderr + chunk).slice(-2000)));
  let exited = false;
  child.once("exit", () => (exited = true));
  try {
    for (;;) {
      if (exited) throw new Error(`${command} ${argsFor(port).join(" ")} exited before answering:\n${stderr}`);
      const status = await trySend(port);
      if (status === 200) return performance.now() - began;
      if (status !== 0) throw new Error(`${command}: POST /send answered ${status}`);
      if (performance.now() - began > GIVE_UP_MS) throw new Error(`${command} did not answer POST /send within ${GIVE_UP_MS} ms`);
      await sleep(POLL_MS);
    }
  } finally {
    if (child.pid !== undefined && !exited) {
      process.kill(-child.pid, "SIGTERM");
      await new Promise((resolve) => child.once("exit", resolve));
    }
  }
}

/**
 * Milliseconds from spawning `command args` in `cwd` to its exit: what npm itself adds to
 * `npm start`, beside a bare node start, to show where `npm start`'s time beyond `serve` goes.
 * @param {string} command
 * @param {string[]} args
 * @param {string} cwd
 */
async function spawnToExit(command, args, cwd) {
  const began = performance.now();
  const child = spawn(command, args, { cwd, stdio: "ignore" });
  const code = await new Promise((resolve) => child.once("exit", resolve));
  if (code !== 0) throw new Error(`${command} ${args.join(" ")} exited ${String(code)}`);
  return performance.now() - began;
}

/** One cold process's own timings of import, first mock and later mocks. */
async function inProcessOnce() {
  const proc = spawnNode("startup-in-process", [path.join(ROOT, "test/bench/startup-in-process.mjs"), String(LATER_MOCKS)]);
  await new Promise((resolve) => proc.child.once("exit", resolve));
  const line = proc.stdout().trim().split("\n").at(-1) ?? "";
  try {
    return /** @type {{ importMs: number, first: { totalMs: number, startMs: number, sendMs: number }, later: { totalMs: number }[] }} */ (JSON.parse(line));
  } finally {
    await stopServer(proc);
  }
}

/**
 * The single executable as of the sources, built again if anything it is made of changed (a few
 * seconds), and started once so that the samples find its files written out, as every start but
 * a machine's first does. Undefined when it can be measured, else why not.
 * @param {(line: string) => void} log
 */
async function readyBinary(log) {
  try {
    await buildBinaryIfStale();
    const first = spawn(BINARY, ["--version"], { stdio: "ignore" });
    const code = await new Promise((resolve) => first.once("exit", resolve));
    if (code !== 0) throw new Error(`${BINARY} --version exited ${String(code)}`);
    return undefined;
  } catch (error) {
    const reason = error instanceof Error ? error.message.split("\n")[0] : String(error);
    log(`the single executable is not measured: ${reason}`);
    return reason;
  }
}

/** @param {(line: string) => void} log */
export async function measureStartupSection(log) {
  /** @type {Record<string, number[]>} */
  const samples = {
    importMs: [],
    importFirstMockFirstSendMs: [],
    laterMockMs: [],
    serveMs: [],
    binaryServeMs: [],
    unbundledServeMs: [],
    npmStartMs: [],
    npmStartOfNodeMs: [],
    nodeAloneMs: [],
    baselineMs: [],
  };
  const binaryNotMeasured = await readyBinary(log);
  if (binaryNotMeasured !== undefined) delete samples.binaryServeMs;
  // A package whose `npm start` only starts node and exits: npm's own share of `npm start`.
  const emptyPackage = mkdtempSync(path.join(os.tmpdir(), "sendmock-bench-npm-"));
  writeFileSync(path.join(emptyPackage, "package.json"), JSON.stringify({ name: "empty", private: true, scripts: { start: "node -e 0" } }));
  try {
    for (let i = 1; i <= SAMPLES; i += 1) {
      const inProcess = await inProcessOnce();
      samples.importMs.push(inProcess.importMs);
      samples.importFirstMockFirstSendMs.push(inProcess.importMs + inProcess.first.startMs + inProcess.first.sendMs);
      samples.laterMockMs.push(median(inProcess.later.map((mock) => mock.totalMs)));
      samples.serveMs.push(await spawnToFirstSend(process.execPath, (port) => [CLI, "serve", "--port", String(port)]));
      if (binaryNotMeasured === undefined) samples.binaryServeMs?.push(await spawnToFirstSend(BINARY, (port) => ["serve", "--port", String(port)]));
      samples.unbundledServeMs.push(await spawnToFirstSend(process.execPath, (port) => ["dist/cli.js", "serve", "--port", String(port)]));
      samples.npmStartMs.push(await spawnToFirstSend("npm", (port) => ["start", "--silent", "--", "--port", String(port)]));
      samples.npmStartOfNodeMs.push(await spawnToExit("npm", ["start", "--silent"], emptyPackage));
      samples.nodeAloneMs.push(await spawnToExit(process.execPath, ["-e", "0"], emptyPackage));
      samples.baselineMs.push(await spawnToFirstSend(process.execPath, (port) => ["test/bench/baseline-validator.mjs", String(port)]));
      log(
        `startup sample ${i}/${SAMPLES}: ${Object.entries(samples)
          .map(([name, values]) => `${name} ${Math.round(/** @type {number} */ (values.at(-1)))}`)
          .join(", ")}`,
      );
    }
  } finally {
    rmSync(emptyPackage, { recursive: true, force: true });
  }
  const medians = Object.fromEntries(Object.entries(samples).map(([name, values]) => [name, Math.round(median(values) * 10) / 10]));
  return {
    samples: Object.fromEntries(Object.entries(samples).map(([name, values]) => [name, values.map((ms) => Math.round(ms * 10) / 10)])),
    medians,
    laterMocksPerSample: LATER_MOCKS,
    binaryNotMeasured,
  };
}

/** @param {Awaited<ReturnType<typeof measureStartupSection>>} startup */
export function startupLines(startup) {
  const { medians, samples } = startup;
  const row = (/** @type {string} */ label, /** @type {string} */ key) =>
    `${label.padEnd(74)} ${String(medians[key]).padStart(8)} ms  [${(samples[key] ?? []).join(", ")}]`;
  return [
    `startup (medians of ${SAMPLES} cold samples; later mock = median of ${startup.laterMocksPerSample} in each process)`,
    row('in-process: import("sendmock")', "importMs"),
    row("in-process: import + first mock + first POST /send", "importFirstMockFirstSendMs"),
    row("in-process: each later mock (start + one POST /send + close)", "laterMockMs"),
    row("sendmock serve: spawn -> first 200 on POST /send", "serveMs"),
    row("  the same from tsc's output unbundled (node dist/cli.js serve)", "unbundledServeMs"),
    startup.binaryNotMeasured === undefined
      ? row(`the single executable (${path.relative(ROOT, BINARY)} serve): spawn -> first 200`, "binaryServeMs")
      : `the single executable: not measured (${startup.binaryNotMeasured})`,
    row("npm start (built tree): spawn -> first 200 on POST /send", "npmStartMs"),
    row("  npm's own share: `npm start` whose script is `node -e 0`: spawn -> exit", "npmStartOfNodeMs"),
    row("  beside `node -e 0` alone: spawn -> exit", "nodeAloneMs"),
    row("baseline express + validator: spawn -> first 200 on POST /send", "baselineMs"),
  ];
}

/** @param {Awaited<ReturnType<typeof measureStartupSection>>} startup */
export function startupTargets(startup) {
  const m = /** @type {Record<string, number>} */ (startup.medians);
  return [
    { name: "each later in-process mock <= 20 ms", pass: m.laterMockMs <= 20, detail: `${m.laterMockMs} ms` },
    { name: "import + first mock + first send <= 300 ms", pass: m.importFirstMockFirstSendMs <= 300, detail: `${m.importFirstMockFirstSendMs} ms` },
    { name: "sendmock serve -> first 200 <= 350 ms", pass: m.serveMs <= 350, detail: `${m.serveMs} ms` },
    {
      name: "sendmock serve no slower than the baseline's startup",
      pass: m.serveMs <= m.baselineMs,
      detail: `${m.serveMs} ms vs ${m.baselineMs} ms (${(m.serveMs / m.baselineMs).toFixed(2)}x)`,
    },
    {
      name: "binary serve -> first 200 <= sendmock serve",
      pass: startup.binaryNotMeasured === undefined ? m.binaryServeMs <= m.serveMs : null,
      detail:
        startup.binaryNotMeasured === undefined
          ? `${m.binaryServeMs} ms vs ${m.serveMs} ms (${(m.binaryServeMs / m.serveMs).toFixed(2)}x)`
          : `not measured: ${startup.binaryNotMeasured}`,
    },
    {
      name: "npm start <= 1.3 x sendmock serve",
      pass: m.npmStartMs <= 1.3 * m.serveMs,
      // npm's own share (an npm start of `node -e 0`, less node's own start) is what the 0.3 x must hold.
      detail: `${m.npmStartMs} ms vs ${Math.round(1.3 * m.serveMs)} (${(m.npmStartMs / m.serveMs).toFixed(2)}x); npm's own share ${Math.round(m.npmStartOfNodeMs - m.nodeAloneMs)} ms vs 0.3 x serve ${Math.round(0.3 * m.serveMs)} ms`,
    },
  ];
}
