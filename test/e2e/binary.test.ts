// The single executable (npm run build:binary, built before the suite) on a machine without Node:
// its commands, its inbox page and shipped templates, its refusals worded as the npm package's,
// and the package's files it writes out of itself to a cache folder.

import type { ChildProcess } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { BINARY, binaryMissing } from "../support/built-artifacts.js";
import { ROOT, runCli, serveCli, type CliRun } from "../support/cli-process.js";
import { aRunningMock, aSendRequest, bearer } from "../support/helpers.js";

const skipReason = binaryMissing();
const VERSION = (JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as { version: string }).version;

const running: ChildProcess[] = [];
afterEach(() => {
  for (const child of running.splice(0)) child.kill("SIGKILL");
});

/** A home of the test's own and a PATH with no node on it: the executable must need neither. */
let sandbox: string;
let noNode: string;

beforeAll(async () => {
  sandbox = await mkdtemp(path.join(os.tmpdir(), "sendmock-binary-"));
  noNode = path.join(sandbox, "empty-path");
  await mkdir(noNode);
});

afterAll(async () => {
  await rm(sandbox, { recursive: true, force: true });
});

function machineWithoutNode(extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: noNode, HOME: path.join(sandbox, "home"), XDG_CACHE_HOME: path.join(sandbox, "cache"), TMPDIR: sandbox, ...extra };
}

function runBinary(args: string[], env: Record<string, string> = machineWithoutNode()): CliRun {
  return runCli(args, running, { executable: BINARY, env, cleanEnv: true, cwd: sandbox });
}

function serveBinary(args: string[], env: Record<string, string> = machineWithoutNode()): Promise<CliRun & { url: string }> {
  return serveCli(args, running, { executable: BINARY, env, cleanEnv: true, cwd: sandbox });
}

async function postSend(url: string, body: unknown = aSendRequest()): Promise<Response> {
  return fetch(`${url}/send`, { method: "POST", headers: { "Content-Type": "application/json", ...bearer() }, body: JSON.stringify(body) });
}

describe.skipIf(skipReason !== undefined)("the single executable", () => {
  it("prints the package's version with --version", async () => {
    const run = runBinary(["--version"]);
    expect(await run.exited).toBe(0);
    expect(run.stdout()).toBe(`${VERSION}\n`);
  });

  it("lists its commands with --help", async () => {
    const run = runBinary(["--help"]);
    expect(await run.exited).toBe(0);
    expect(run.stdout()).toMatch(/serve \[options\][\s\S]*check \[options\] <base_url>[\s\S]*proxy \[options\]/);
  });

  it("serves POST /send with the shipped templates and keeps the rendered message", async () => {
    const mock = await serveBinary(["--port", "0"]);
    expect(mock.stdout()).toMatch(/templates: +4 loaded/);
    const response = await postSend(mock.url);
    expect(response.status).toBe(200);
    const latest = (await (await fetch(`${mock.url}/_mock/messages/latest`)).json()) as { subject: string };
    expect(latest.subject).toBe("Welcome to Analytical Engines, Ada!");
  });

  it("serves the inbox page and the scripts and styles it loads", async () => {
    const mock = await serveBinary(["--port", "0"]);
    const page = await fetch(`${mock.url}/_mock/`);
    expect(page.status).toBe(200);
    const html = await page.text();
    const script = /<script type="module" src="\.\/([^"]+)"/.exec(html)?.[1];
    const style = /<link rel="stylesheet" href="\.\/([^"]+)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    expect(style).toBeDefined();
    const scriptResponse = await fetch(`${mock.url}/_mock/${String(script)}`);
    expect(scriptResponse.status).toBe(200);
    expect(scriptResponse.headers.get("content-type")).toMatch(/javascript/);
    expect(await scriptResponse.text()).toBe(readFileSync(path.join(ROOT, "src", String(script)), "utf8"));
    const styleResponse = await fetch(`${mock.url}/_mock/${String(style)}`);
    expect(styleResponse.status).toBe(200);
    expect(styleResponse.headers.get("content-type")).toMatch(/text\/css/);
  });

  it("passes check against a running sendmock", async () => {
    const target = await aRunningMock();
    try {
      const run = runBinary(["check", target.url]);
      expect(await run.exited, run.stderr()).toBe(0);
      expect(run.stdout()).toMatch(/\d+ passed, 0 failed/);
    } finally {
      await target.close();
    }
  });

  it("relays a send through proxy to the service behind it", async () => {
    const target = await aRunningMock();
    try {
      const proxy = runBinary(["proxy", "--target", target.url, "--port", "0"]);
      const url = await new Promise<string>((resolve, reject) => {
        proxy.child.stdout.on("data", () => {
          const match = /listening on (http:\/\/[\w.]+:\d+)/.exec(proxy.stdout());
          if (match?.[1]) resolve(match[1]);
        });
        void proxy.exited.then((code) => reject(new Error(`proxy exited with ${String(code)}: ${proxy.stderr()}`)));
      });
      const response = await postSend(url);
      expect(response.status).toBe(200);
      const { message_id } = (await response.json()) as { message_id: string };
      const relayed = (await (await fetch(`${target.url}/_mock/messages/latest`)).json()) as { id: string };
      expect(relayed.id).toBe(message_id);
    } finally {
      await target.close();
    }
  });

  it.each([
    ["an unknown response shape", ["serve", "--shape", "z"]],
    ["a templates folder that does not exist", ["serve", "--port", "0", "--templates", "/no/such/templates"]],
  ])("refuses %s with the npm package's own words and status", async (_what, args) => {
    const binary = runBinary(args);
    const npmPackage = runCli(args, running, { cwd: sandbox });
    const [binaryCode, npmCode] = await Promise.all([binary.exited, npmPackage.exited]);
    expect(binaryCode).not.toBe(0);
    expect(binaryCode).toBe(npmCode);
    expect(binary.stderr()).not.toBe("");
    expect(binary.stderr()).toBe(npmPackage.stderr());
  });

  it("exits 0 on SIGTERM", async () => {
    const mock = await serveBinary(["--port", "0"]);
    mock.child.kill("SIGTERM");
    expect(await mock.exited).toBe(0);
    expect(mock.stderr()).toContain("SIGTERM received");
  });

  it("writes its files out once when two start at once, leaving nothing half-written", async () => {
    const env = machineWithoutNode({ XDG_CACHE_HOME: path.join(sandbox, "shared-cache") });
    const runs = [runBinary(["--version"], env), runBinary(["--version"], env)];
    expect(await Promise.all(runs.map((run) => run.exited))).toEqual([0, 0]);
    const [folder, ...others] = readdirSync(path.join(sandbox, "shared-cache", "sendmock"));
    expect(others).toEqual([]);
    const written = readdirSync(path.join(sandbox, "shared-cache", "sendmock", String(folder)), { recursive: true, encoding: "utf8" });
    expect(written).toContain(path.join("fixtures", "templates", "welcome.yaml"));
    expect(written.filter((file) => file.endsWith(".partial"))).toEqual([]);
  });

  it("writes again a file that was removed from its cache folder, as a cache cleaner may", async () => {
    const env = machineWithoutNode({ XDG_CACHE_HOME: path.join(sandbox, "cleaned-cache") });
    expect(await runBinary(["--version"], env).exited).toBe(0);
    const [folder] = readdirSync(path.join(sandbox, "cleaned-cache", "sendmock"));
    const template = path.join(sandbox, "cleaned-cache", "sendmock", String(folder), "fixtures", "templates", "welcome.yaml");
    await rm(template);
    const mock = await serveBinary(["--port", "0"], env);
    expect(existsSync(template)).toBe(true);
    expect((await postSend(mock.url)).status).toBe(200);
  });

  it("falls back to a folder of its own in the temporary folder when the cache folder cannot be made", async () => {
    const notAFolder = path.join(sandbox, "a-file");
    await writeFile(notAFolder, "");
    const tmp = await mkdtemp(path.join(sandbox, "tmp-"));
    const mock = await serveBinary(["--port", "0"], machineWithoutNode({ XDG_CACHE_HOME: notAFolder, TMPDIR: tmp }));
    expect(mock.stdout()).toContain(`loaded from ${path.join(tmp, `sendmock-${String(process.getuid?.() ?? "user")}`)}`);
    expect((await postSend(mock.url)).status).toBe(200);
    expect(existsSync(path.join(notAFolder, "sendmock"))).toBe(false);
  });
});
