// Starts test/support/send_service.py, the Python stand-in for the real email send service (written from its published spec alone), as the judge for `check` and `proxy` tests: its URL, the requests it answered, and closing it.

import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { PYTHON } from "./python.js";

export type PythonServiceVariant = "conforming" | "no-id-with-subject" | "500-on-non-ascii-subject" | "wrong-404-body" | "data-optional";

export interface PythonServiceOptions {
  /** Requests let through per API key in any rolling second (the script's --rate; default 5). */
  rate?: number;
}

/** One request the service answered, as it printed it. */
export interface AnsweredRequest {
  method: string;
  /** The request target as sent, query string included. */
  path: string;
  status: number;
  /** The request body as text (at most 4096 characters). */
  body: string;
}

export interface PythonSendService {
  /** http://127.0.0.1:PORT (base URL; the operation is POST {url}/send) */
  url: string;
  /** Every request answered, in the order of the responses (a line is printed just before its response is written). */
  received: AnsweredRequest[];
  /** Stops the process (SIGTERM, then SIGKILL after 2 s) and waits for its exit. */
  close(): Promise<void>;
}

const SCRIPT = fileURLToPath(new URL("./send_service.py", import.meta.url));
const START_TIMEOUT_MS = 10_000;
const KILL_AFTER_MS = 2_000;

/** Why the Python service cannot run here, or undefined when it can; in CI a missing Python fails instead. */
export function pythonServiceMissing(): string | undefined {
  if (existsSync(PYTHON)) return undefined;
  const reason = `no ${PYTHON} (apt-get install python3)`;
  if (process.env.CI === "true") throw new Error(`the Python send service must run in CI, but ${reason}`);
  console.warn(`skipping the Python send service: ${reason}`);
  return reason;
}

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === "object" && !Array.isArray(value);

function answeredRequest(value: unknown): AnsweredRequest | undefined {
  if (!isObject(value)) return undefined;
  const { method, path, status, body } = value;
  if (typeof method !== "string" || typeof path !== "string" || typeof status !== "number" || typeof body !== "string") return undefined;
  return { method, path, status, body };
}

function parseLine(line: string): unknown {
  try {
    return JSON.parse(line) as unknown;
  } catch {
    return undefined;
  }
}

/** Starts the service and resolves once it listens. */
export function startPythonSendService(variant: PythonServiceVariant, options: PythonServiceOptions = {}): Promise<PythonSendService> {
  const args = [SCRIPT, "--variant", variant];
  if (options.rate !== undefined) args.push("--rate", String(options.rate));
  // stdin stays open: the script stops when it closes, so the service goes with this process whatever ends it.
  const child = spawn(PYTHON, args, { stdio: ["pipe", "pipe", "pipe"] });
  const received: AnsweredRequest[] = [];
  let stderr = "";
  let pending = "";
  let onListening: ((port: number) => void) | undefined;

  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const running = (): boolean => child.exitCode === null && child.signalCode === null;

  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout.on("data", (chunk: Buffer) => {
    pending += chunk.toString();
    const lines = pending.split("\n");
    pending = lines.pop() ?? "";
    for (const line of lines) {
      const value = parseLine(line);
      const request = answeredRequest(value);
      if (request !== undefined) received.push(request);
      else if (isObject(value) && typeof value.listening === "number") onListening?.(value.listening);
    }
  });

  const close = async (): Promise<void> => {
    if (!running()) return;
    child.kill("SIGTERM");
    const timer = setTimeout(() => {
      if (running()) child.kill("SIGKILL");
    }, KILL_AFTER_MS);
    await exited;
    clearTimeout(timer);
  };

  return new Promise<PythonSendService>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`${SCRIPT} --variant ${variant} did not print {"listening": PORT} within ${START_TIMEOUT_MS / 1000} s; stderr: ${stderr}`));
      void close();
    }, START_TIMEOUT_MS);
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(new Error(`could not start ${PYTHON} ${SCRIPT}: ${error.message}`));
    });
    // "close", not "exit": the script's last words may still be in its stderr pipe when it exits.
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${SCRIPT} --variant ${variant} exited (${signal ?? `code ${String(code)}`}) before it listened: ${stderr}`));
    });
    onListening = (port) => {
      clearTimeout(timer);
      onListening = undefined;
      resolve({ url: `http://127.0.0.1:${port}`, received, close });
    };
  });
}
