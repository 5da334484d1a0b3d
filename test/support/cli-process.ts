// The real `sendmock` bin as a child process, for the CLI tests: its output, its exit, and `serve` once it prints its URL.

import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));
/** The bin as package.json names it, relative to the package (dist/bin/sendmock.js, the bundle). */
export const BIN = (JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as { bin: { sendmock: string } }).bin.sendmock;
export const CLI = path.join(ROOT, BIN);

export interface CliRun {
  child: ChildProcessWithoutNullStreams;
  stdout: () => string;
  stderr: () => string;
  /** The exit code, once the child has exited and all its output has been read. */
  exited: Promise<number | null>;
}

export interface CliOptions {
  /** Another build of the bin (default: this package's). */
  cli?: string;
  /** An executable to run instead of node with the bin: the single executable (npm run build:binary). */
  executable?: string;
  cwd?: string;
  /** Added to this process's environment, or the whole environment with `cleanEnv`. */
  env?: Record<string, string>;
  /** The child gets `env` alone: none of this process's variables (its PATH, with node on it, among them). */
  cleanEnv?: boolean;
}

/** Runs `sendmock ...args`; the child is pushed to `running`, for the test file to kill after each test. */
export function runCli(args: string[], running: { push(child: ChildProcessWithoutNullStreams): unknown }, options: CliOptions = {}): CliRun {
  const [command, commandArgs] = options.executable === undefined ? [process.execPath, [options.cli ?? CLI, ...args]] : [options.executable, args];
  const child = spawn(command, commandArgs, {
    cwd: options.cwd ?? ROOT,
    env: options.cleanEnv === true ? { ...options.env } : { ...process.env, ...options.env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  return watched(child, running);
}

/** A child with no input, pushed to `running` (for the test file to kill), its output kept and its exit awaited. */
export function watched(child: ChildProcessWithoutNullStreams, running: { push(child: ChildProcessWithoutNullStreams): unknown }): CliRun {
  child.stdin.end();
  running.push(child);
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  // "close", not "exit": a child's last writes may still be in its pipes when it exits, and a
  // test that reads stdout or stderr once it exited would miss them.
  const exited = new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)));
  return { child, exited, stdout: () => stdout, stderr: () => stderr };
}

/** `sendmock serve ...args`, once it has printed the URL it serves on. */
export async function serveCli(
  args: string[],
  running: { push(child: ChildProcessWithoutNullStreams): unknown },
  options: CliOptions = {},
): Promise<CliRun & { url: string }> {
  const started = runCli(["serve", ...args], running, options);
  const url = await new Promise<string>((resolve, reject) => {
    started.child.stdout.on("data", () => {
      const match = /listening on (http:\/\/[\w.]+:\d+)/.exec(started.stdout());
      if (match?.[1]) resolve(match[1]);
    });
    void started.exited.then((code) => reject(new Error(`exited with ${String(code)}: ${started.stderr()}`)));
  });
  return { ...started, url };
}
