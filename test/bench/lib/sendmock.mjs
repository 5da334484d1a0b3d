// The servers the bench's sections start: sendmock (on a config of a given capacity, or on the
// bench's own redis-server) and the two baselines, and the temp folder and Redis of one bench run.

import { spawn, spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { log } from "./knobs.mjs";
import { CLI, freePort, ROOT, startServer } from "./servers.mjs";

/**
 * What one bench run made, for its exit paths to remove: the temp folder of its config files and
 * peer scratch ("" until a section that needs one makes it), and its redis-server.
 * @typedef {object} BenchRun
 * @property {string} tempDir
 * @property {{ url: string, stop: () => void } | undefined} redis
 */

/** Gives the run its temp folder. @param {BenchRun} bench */
export function makeTempDir(bench) {
  bench.tempDir = mkdtempSync(path.join(os.tmpdir(), "sendmock-bench-"));
}

/**
 * A config file with that capacity, in the bench's temp folder. max_bytes is raised out of the
 * way: these scenarios measure `capacity` messages (100k of them hold ~180 MB of JSON, past the
 * default 48 MB byte bound).
 * @param {string} tempDir the run's, see BenchRun
 * @param {number} capacity
 */
export function configWithCapacity(tempDir, capacity) {
  const file = path.join(tempDir, `capacity-${capacity}.yaml`);
  writeFileSync(file, `capacity: ${capacity}\nmax_bytes: 2gb\n`);
  return file;
}

/** @param {string[]} extra arguments to `sendmock serve` @param {string[]} nodeFlags */
export const sendmock = (extra = [], nodeFlags = []) => startServer("sendmock", [...nodeFlags, CLI, "serve", "--port", "0", ...extra]);
/**
 * A redis-server of the bench's own for the redis store's rows, or undefined (with the reason
 * logged) when Debian's redis-server is not installed.
 * @returns {Promise<{ url: string, stop: () => void } | undefined>}
 */
export async function startBenchRedis() {
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

/** A sendmock on the bench's Redis, on a key prefix of its own so that no run sees another's data. */
export const sendmockOnRedis = (/** @type {BenchRun} */ bench, /** @type {string[]} */ extra = []) =>
  sendmock(["--redis-url", /** @type {{ url: string }} */ (bench.redis).url, "--key-prefix", `bench:${randomUUID()}:`, ...extra]);

export const baselineValidator = () => startServer("baseline-validator", [path.join(ROOT, "test/bench/baseline-validator.mjs"), "0"]);
export const baselineHttp = () => startServer("baseline-http", [path.join(ROOT, "test/bench/baseline-http.mjs"), "0"]);
export const baselineExpress = () => startServer("baseline-express", [path.join(ROOT, "test/bench/baseline-express.mjs"), "0"]);
