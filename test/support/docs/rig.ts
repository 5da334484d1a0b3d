// What the docs' blocks run against, for one test file, and the ways they run commands: the built bin, curl, node.

import { execFile, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll } from "vitest";
import { startSendMock, type RunningSendMock } from "../../../src/index.js";
import { ROOT, runCli, type CliRun } from "../cli-process.js";
import { sharedRedis } from "../redis.js";
import { startSpecService, type SpecService } from "../spec-service.js";

/**
 * One in-process sendmock for every curl line, a webhook receiver that responds with 500 (the
 * docs' example delivery failed), a stand-in for the real service for `check`, and the child
 * processes and folders to clean up.
 */
export class DocsRig {
  mock!: RunningSendMock;
  receiverUrl = "";
  work = "";
  readonly children: ChildProcessWithoutNullStreams[] = [];
  /** The problems tsc finds in each TypeScript block, by its file: built once, on the first block that asks. */
  typeProblems: Map<string, string[]> | undefined;
  private receiver!: Server;
  private specService: Promise<SpecService> | undefined;
  private stopRedis: (() => Promise<void>) | undefined;

  async start(): Promise<void> {
    this.work = await mkdtemp(path.join(os.tmpdir(), "sendmock-docs-"));
    this.mock = await startSendMock({ port: 0, watchTemplates: false });
    this.receiver = createServer((req, res) => {
      req.resume();
      req.on("end", () => res.writeHead(500).end("no"));
    });
    await new Promise<void>((resolve) => this.receiver.listen(0, "127.0.0.1", resolve));
    this.receiverUrl = `http://127.0.0.1:${(this.receiver.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    for (const child of this.children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await Promise.all([
      this.mock.close(),
      new Promise<void>((resolve) => {
        this.receiver.closeAllConnections();
        this.receiver.close(() => resolve());
      }),
      this.specService?.then((service) => service.close()),
      this.stopRedis?.(),
    ]);
    if (this.work !== "") await rm(this.work, { recursive: true, force: true });
  }

  theSpecService(): Promise<SpecService> {
    this.specService ??= startSpecService("conforming");
    return this.specService;
  }

  /** The URL of a Redis for a command that names one, stopped with the rig. */
  async redisUrl(): Promise<string> {
    const redis = await sharedRedis();
    this.stopRedis = redis.stop;
    return redis.url;
  }

  /** A fresh folder under the test's own, for one command's files. */
  async aFolder(): Promise<string> {
    return mkdtemp(path.join(this.work, "run-"));
  }

  /** `sendmock ...args` with the built bin, once it prints the URL it listens on. */
  async listening(args: string[], options: { cwd: string; env?: Record<string, string>; executable?: string }): Promise<CliRun & { url: string }> {
    const started = runCli(args, this.children, options);
    const url = await new Promise<string>((resolve, reject) => {
      started.child.stdout.on("data", () => {
        const match = /listening on (http:\/\/[\w.]+:\d+)/.exec(started.stdout());
        if (match?.[1]) resolve(match[1]);
      });
      void started.exited.then((code) => reject(new Error(`sendmock ${args.join(" ")} exited with ${String(code)}: ${started.stderr()}`)));
    });
    return { ...started, url };
  }
}

/** A rig started before the file's tests and stopped after them. */
export function docsRig(): DocsRig {
  const rig = new DocsRig();
  beforeAll(() => rig.start(), 30_000);
  afterAll(() => rig.stop());
  return rig;
}

export async function aClosedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

export function run(command: string, args: string[], options: { cwd?: string; env?: Record<string, string>; timeoutMs?: number } = {}): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      { cwd: options.cwd ?? ROOT, env: { ...process.env, ...options.env }, timeout: options.timeoutMs ?? 30_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : 1;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** SIGTERM, as Ctrl-C or a container stop would: the docs promise exit code 0. */
export async function stopped(started: CliRun): Promise<number | null> {
  started.child.kill("SIGTERM");
  return started.exited;
}
