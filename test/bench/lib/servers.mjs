// Child servers of the bench: each started fresh (with `node`, or a peer's own command), tracked, and always killed.

import { spawn, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
/** The `sendmock` bin as package.json names it: the bundle `npm run build` writes (scripts/bundle-bin.mjs). */
export const CLI = path.join(ROOT, JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")).bin.sendmock);
const START_TIMEOUT_MS = 20_000;
const STOP_TIMEOUT_MS = 3_000;
// Up to a quote too: with --log-format json the URL sits inside the banner's JSON line.
const URL_LINE = /listening on (http:\/\/[^\s"]+)/;

/**
 * @typedef {object} Server
 * @property {string} name
 * @property {string} url the base URL it printed
 * @property {number} pid
 * @property {import("node:child_process").ChildProcess} child
 * @property {() => string} stderrTail the last few KB it wrote to stderr
 * @property {() => boolean} exited
 */

/** @type {Set<import("node:child_process").ChildProcess>} */
const live = new Set();

/** Kills every child still running (SIGKILL): for exit paths, where nothing can be awaited. */
/** The middle value (the mean of the two middle ones for an even count). @param {number[]} values */
export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? /** @type {number} */ (sorted[middle])
    : /** @type {number} */ (sorted[middle - 1] + /** @type {number} */ (sorted[middle])) / 2;
}

export function killAll() {
  for (const child of live) {
    try {
      child.kill("SIGKILL");
    } catch {
      // already gone
    }
  }
  live.clear();
}

/**
 * Spawns `node ...args` from the project root, without waiting for anything.
 * @param {string} name
 * @param {string[]} args
 */
export function spawnNode(name, args) {
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
  live.add(child);
  let stderr = "";
  let stdout = "";
  let exited = false;
  child.stderr.setEncoding("utf8").on("data", (/** @type {string} */ chunk) => {
    stderr = (stderr + chunk).slice(-4000);
  });
  child.stdout.setEncoding("utf8").on("data", (/** @type {string} */ chunk) => {
    stdout = (stdout + chunk).slice(-4000);
  });
  child.once("exit", () => {
    exited = true;
    live.delete(child);
  });
  return {
    name,
    child,
    stdout: () => stdout,
    stderrTail: () => stderr.trim(),
    exited: () => exited,
  };
}

/**
 * Starts a server in a fresh child process and waits for the URL it prints.
 * @param {string} name
 * @param {string[]} args arguments to `node`
 * @returns {Promise<Server>}
 */
export async function startServer(name, args) {
  const proc = spawnNode(name, args);
  const { child } = proc;
  const url = await new Promise((resolve, reject) => {
    const fail = (/** @type {string} */ why) => {
      cleanup();
      child.kill("SIGKILL");
      const tail = proc.stderrTail() || proc.stdout().trim();
      reject(new Error(`${name} failed to start: ${why}${tail ? `\n--- its output ---\n${tail}` : ""}\n(command: node ${args.join(" ")})`));
    };
    const timer = setTimeout(() => fail(`no "listening on" line within ${START_TIMEOUT_MS} ms`), START_TIMEOUT_MS);
    const onData = () => {
      const match = URL_LINE.exec(proc.stdout());
      if (match?.[1]) {
        cleanup();
        resolve(match[1].replace(/\/+$/, ""));
      }
    };
    const onExit = (/** @type {number | null} */ code, /** @type {string | null} */ signal) => fail(`exited with ${signal ?? `code ${String(code)}`}`);
    const onError = (/** @type {Error} */ error) => fail(error.message);
    function cleanup() {
      clearTimeout(timer);
      child.stdout?.off("data", onData);
      child.off("exit", onExit);
      child.off("error", onError);
    }
    child.stdout?.on("data", onData);
    child.once("exit", onExit);
    child.once("error", onError);
  });
  return { name, url: String(url), pid: /** @type {number} */ (child.pid), child, stderrTail: proc.stderrTail, exited: proc.exited };
}

/**
 * Starts a server that prints no URL (a peer: Prism at `-v error`, WireMock on `java`) in a
 * fresh child process on `port`, and waits until an HTTP request to `readyPath` gets any response.
 * The command is run as it is, not through a wrapper, so that its pid is the server's own: the
 * CPU read from /proc is the server's, and a SIGKILL leaves nothing running.
 * @param {string} name
 * @param {string} command
 * @param {string[]} args
 * @param {{ port: number, readyPath: string, cwd?: string }} options
 * @returns {Promise<Server>}
 */
export async function startCommand(name, command, args, { port, readyPath, cwd = ROOT }) {
  const child = spawn(command, args, { cwd, stdio: ["ignore", "pipe", "pipe"] });
  live.add(child);
  let output = "";
  let exited = false;
  const keep = (/** @type {string} */ chunk) => {
    output = (output + chunk).slice(-4000);
  };
  child.stdout.setEncoding("utf8").on("data", keep);
  child.stderr.setEncoding("utf8").on("data", keep);
  child.once("exit", () => {
    exited = true;
    live.delete(child);
  });
  /** @type {Error | undefined} */
  let spawnError;
  child.once("error", (error) => (spawnError = error));
  const url = `http://127.0.0.1:${port}`;
  const began = performance.now();
  for (;;) {
    if (spawnError !== undefined || exited) {
      child.kill("SIGKILL");
      throw new Error(
        `${name} failed to start: ${spawnError?.message ?? `exited with ${String(child.exitCode ?? child.signalCode)}`}${output ? `\n--- its output ---\n${output.trim()}` : ""}\n(command: ${command} ${args.join(" ")})`,
      );
    }
    try {
      const response = await fetch(url + readyPath);
      await response.arrayBuffer();
      break;
    } catch {
      // Not listening yet.
    }
    if (performance.now() - began > START_TIMEOUT_MS) {
      child.kill("SIGKILL");
      throw new Error(
        `${name} failed to start: nothing answered on ${url} within ${START_TIMEOUT_MS} ms${output ? `\n--- its output ---\n${output.trim()}` : ""}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { name, url, pid: /** @type {number} */ (child.pid), child, stderrTail: () => output.trim(), exited: () => exited };
}

/**
 * Stops a child: SIGTERM, then SIGKILL if it has not exited in time.
 * @param {{ child: import("node:child_process").ChildProcess }} server
 */
export async function stopServer({ child }) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), STOP_TIMEOUT_MS);
  await exited;
  clearTimeout(timer);
}

/** A port free right now on 127.0.0.1 (for the startup measurement, which polls from spawn time). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = /** @type {import("node:net").AddressInfo} */ (probe.address());
      probe.close(() => resolve(port));
    });
  });
}

/**
 * Resident memory of a process, in bytes (VmRSS of /proc/<pid>/status), and its peak (VmHWM).
 * @param {number} pid
 */
export function memoryOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (/** @type {string} */ key) => {
    const match = new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(status);
    if (!match?.[1]) throw new Error(`no ${key} in /proc/${pid}/status`);
    return Number(match[1]) * 1024;
  };
  return { rss: kb("VmRSS"), peak: kb("VmHWM") };
}

/** Clock ticks per second of /proc/<pid>/stat's CPU times (100 on Linux, but asked). */
const CLOCK_TICKS = Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout.trim()) || 100;

/**
 * CPU time a process has used so far, user plus system, in milliseconds (utime and stime of
 * /proc/<pid>/stat). What a server spends per request does not depend on what else the machine
 * runs, unlike its throughput on a shared machine.
 * @param {number} pid
 */
export function cpuMsOf(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // Fields after the command name, which is in parentheses and may hold spaces: state is field 3, utime 14, stime 15.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}
