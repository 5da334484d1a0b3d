// The sendmock serve command as a user runs it: the built bin on a port, its banner and answers, a start that cannot work, and how it stops.

import { spawnSync, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { cp, mkdtemp, mkdir, symlink, truncate, writeFile } from "node:fs/promises";
import http from "node:http";
import { createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { BIN, ROOT, runCli, serveCli, type CliOptions, type CliRun } from "../support/cli-process.js";
import { aSendRequest, bearer } from "../support/helpers.js";

type Started = CliRun & { url: string };

const running: ChildProcess[] = [];

afterEach(() => {
  for (const child of running.splice(0)) child.kill("SIGKILL");
});

function run(args: string[], options: CliOptions = {}): CliRun {
  return runCli(args, running, options);
}

/** Starts `sendmock serve` and resolves once it prints the URL it serves on. */
function serve(args: string[], options: CliOptions = {}): Promise<Started> {
  return serveCli(args, running, options);
}

/**
 * GETs `url` on a keep-alive connection the server has already accepted (a first request went
 * over it), resolving once the request is handed to the operating system, so it waits in the
 * server's socket whatever the load: a stopping server still reads it, where a connection not
 * yet accepted would be refused. Resolves with the response to come.
 */
async function sentOnAcceptedConnection(url: string): Promise<{ response: Promise<{ status: number; body: string }> }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const get = (target: string): { request: http.ClientRequest; response: Promise<{ status: number; body: string }> } => {
    const request = http.get(target, { agent });
    const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
      request.once("error", reject);
      request.once("response", (response) => {
        let body = "";
        response.setEncoding("utf8").on("data", (chunk: string) => (body += chunk));
        response.once("end", () => resolve({ status: response.statusCode ?? 0, body }));
      });
    });
    return { request, response };
  };
  await get(new URL("/_mock/health", url).href).response;
  const { request, response } = get(url);
  await once(request, "finish");
  return { response: response.finally(() => agent.destroy()) };
}

/** Runs a start that must fail; returns its exit code and stderr. */
async function failedStart(args: string[], options: CliOptions = {}) {
  const started = run(["serve", ...args], options);
  const code = await started.exited;
  return { code, stderr: started.stderr(), stdout: started.stdout() };
}

function expectOneCleanLine(stderr: string): void {
  const lines = stderr.trimEnd().split("\n");
  expect(lines, stderr).toHaveLength(1);
  expect(stderr).toMatch(/^sendmock: /);
  expect(stderr).not.toMatch(/\n\s+at /);
}

async function postSend(url: string, body: unknown): Promise<Response> {
  return fetch(`${url}/send`, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...bearer() },
    body: JSON.stringify(body),
  });
}

async function tempDir(): Promise<string> {
  return mkdtemp(path.join(os.tmpdir(), "sendmock-cli-"));
}

/** A named pipe in a folder of its own, which nobody opens to write. */
async function aFifo(): Promise<string> {
  const fifo = path.join(await tempDir(), "sendmock.yaml");
  const made = spawnSync("mkfifo", [fifo]);
  if (made.status !== 0) throw new Error(`mkfifo ${fifo} failed: ${made.stderr.toString()}`);
  return fifo;
}

describe("sendmock serve", () => {
  it("picks a free port with --port 0, prints the URL and serves the shipped templates", async () => {
    const mock = await serve(["--port", "0"]);
    expect(mock.stdout()).toMatch(/sendmock listening on http:\/\/127\.0\.0\.1:\d+\n/);
    expect(mock.stdout()).toMatch(/templates: +4 loaded/);

    const response = await postSend(mock.url, aSendRequest());
    expect(response.status).toBe(200);
    const { message_id } = (await response.json()) as { message_id: string };
    const captured = (await (await fetch(`${mock.url}/_mock/messages/${message_id}`)).json()) as { subject: string };
    expect(captured.subject).toBe("Welcome to Analytical Engines, Ada!");
  });

  it("answers in shape b with --shape b", async () => {
    const mock = await serve(["--port", "0", "--shape", "b"]);
    const body = (await (await postSend(mock.url, aSendRequest())).json()) as Record<string, unknown>;
    expect(body).toMatchObject({ status: "success" });
    expect(body.email_id).toEqual(expect.any(String));
  });

  it("reads a YAML config file, resolving its paths against the file's folder, and lets flags win", async () => {
    const dir = await tempDir();
    await mkdir(path.join(dir, "mail"));
    await writeFile(path.join(dir, "mail", "ping.yaml"), "subject: Ping {who}\ntext: Hello {who}\n");
    await writeFile(path.join(dir, "sendmock.yaml"), "templates: ./mail\nresponse_shape: b\nport: 1\napi_keys: [cli-key-123456]\n");
    const mock = await serve(["--config", path.join(dir, "sendmock.yaml"), "--port", "0", "--shape", "a"], { cwd: os.tmpdir() });

    const response = await fetch(`${mock.url}/send`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: "Bearer cli-key-123456" },
      body: JSON.stringify({ to: "ada@example.com", template_id: "ping", data: { who: "Ada" } }),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ success: true, status: "queued" });
    const wrongKey = await postSend(mock.url, { to: "ada@example.com", template_id: "ping", data: { who: "Ada" } });
    expect(wrongKey.status).toBe(401);
  });

  it("reads a JSON config file", async () => {
    const dir = await tempDir();
    await writeFile(path.join(dir, "sendmock.json"), JSON.stringify({ response_shape: "b", port: 0 }));
    const mock = await serve(["--config", path.join(dir, "sendmock.json")]);
    expect(await (await postSend(mock.url, aSendRequest())).json()).toMatchObject({ status: "success" });
  });
});

describe("a start that cannot work exits non-zero with one clear line", () => {
  it("names the config file and the bad key", async () => {
    const dir = await tempDir();
    const file = path.join(dir, "bad.yaml");
    await writeFile(file, "port: 0\ncapacity: -5\n");
    const result = await failedStart(["--config", file]);
    expect(result.code).not.toBe(0);
    expectOneCleanLine(result.stderr);
    expect(result.stderr).toContain(file);
    expect(result.stderr).toContain("capacity must be at least 1");
  });

  it("names a config file that does not parse by line and column, without the parser's code frame", async () => {
    const dir = await tempDir();
    const file = path.join(dir, "broken.yaml");
    await writeFile(file, "port: 0\nrate_limit: [\nstrict_data: true\n");
    const result = await failedStart(["--config", file]);
    expect(result.code).toBe(1);
    expectOneCleanLine(result.stderr);
    expect(result.stderr).toBe(
      `sendmock: config file ${file}, line 3, column 1: Flow sequence in block collection must be sufficiently indented and end with a ]\n`,
    );
  });

  it.each([
    ["JSON", "deep.json", (depth: number) => `{"faults":[{"fault":"respond","status":200,"body":${"[".repeat(depth)}${"]".repeat(depth)}}]}`],
    ["YAML", "deep.yaml", (depth: number) => `faults:\n  - fault: respond\n    status: 200\n    body: ${"[".repeat(depth)}${"]".repeat(depth)}\n`],
  ])("names a respond rule whose body nests 2000 deep in a %s file in one line, without a stack trace", async (_format, name, contents) => {
    const dir = await tempDir();
    const file = path.join(dir, name);
    await writeFile(file, contents(2000));
    const result = await failedStart(["--config", file, "--port", "0"]);
    expect(result.code).toBe(1);
    expectOneCleanLine(result.stderr);
    expect(result.stderr.startsWith(`sendmock: config file ${file}`), result.stderr).toBe(true);
    expect(result.stderr).toMatch(/max_respond_depth|too deep/);
  });

  // /dev/zero used to take 6.2 GB in 15 s and a FIFO nobody writes to hung the start for ever: a config file is read only
  // when it is a regular file, and at most 10 MB of it.
  it.each([
    ["a device", () => Promise.resolve("/dev/zero"), "a character device"],
    ["a FIFO nobody writes to", aFifo, "a FIFO"],
    ["a folder", tempDir, "a folder"],
  ])("refuses a config file that is %s at once, in one line naming it", async (_what, make, kind) => {
    const file = await make();
    const result = await failedStart(["--config", file, "--port", "0"]);
    expect(result.code).toBe(1);
    expectOneCleanLine(result.stderr);
    expect(result.stderr).toBe(`sendmock: config file ${file}: is ${kind}, not a regular file\n`);
  });

  it("refuses a config file over 10 MB in one line naming its size and the limit, without reading it", async () => {
    const file = path.join(await tempDir(), "huge.yaml");
    // Sparse: no disk, and no time to write.
    await writeFile(file, "");
    await truncate(file, 10 * 1024 * 1024 + 1);
    const result = await failedStart(["--config", file, "--port", "0"]);
    expect(result.code).toBe(1);
    expectOneCleanLine(result.stderr);
    expect(result.stderr).toBe(`sendmock: config file ${file}: is 10485761 bytes, more than the 10485760 (10 MB) a config file may hold\n`);
  });

  it("refuses a FIFO named by SENDMOCK_CONFIG as it refuses one named by --config", async () => {
    const fifo = await aFifo();
    const result = await failedStart(["--port", "0"], { env: { SENDMOCK_CONFIG: fifo } });
    expect(result.code).toBe(1);
    expectOneCleanLine(result.stderr);
    expect(result.stderr).toMatch(new RegExp(`^sendmock: config file ${fifo}: is a FIFO, not a regular file`));
  });

  it("blames the config file, not the command line, for a body_limit the file sets", async () => {
    const dir = await tempDir();
    const file = path.join(dir, "sendmock.yaml");
    await writeFile(file, 'body_limit: "0b"\n');
    const result = await failedStart(["--config", file, "--port", "0"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`sendmock: config file ${file}: body_limit must be a size of at least 1B, such as "1mb" or "500kb"\n`);
  });

  it("names a templates folder that does not exist", async () => {
    const result = await failedStart(["--port", "0", "--templates", "/nowhere/templates"]);
    expect(result.code).not.toBe(0);
    expectOneCleanLine(result.stderr);
    expect(result.stderr).toContain("/nowhere/templates");
  });

  it("rejects a bad flag value", async () => {
    const result = await failedStart(["--port", "http"]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/--port/);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it("refuses a non-loopback host without admin_token", async () => {
    const result = await failedStart(["--port", "0", "--host", "0.0.0.0"]);
    expect(result.code).not.toBe(0);
    expectOneCleanLine(result.stderr);
    expect(result.stderr).toContain("refusing to listen on 0.0.0.0 without admin_token");
  });

  it("says the port is in use", async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    const { port } = blocker.address() as { port: number };
    try {
      const result = await failedStart(["--port", String(port)]);
      expect(result.code).not.toBe(0);
      expectOneCleanLine(result.stderr);
      expect(result.stderr).toContain("already in use");
    } finally {
      blocker.close();
    }
  });

  it("names an OpenAPI document that is invalid", async () => {
    // A copy of the package whose send contract is broken, started as a user would start it.
    const copy = await tempDir();
    await cp(path.join(ROOT, "package.json"), path.join(copy, "package.json"));
    await cp(path.join(ROOT, "dist"), path.join(copy, "dist"), { recursive: true });
    await cp(path.join(ROOT, "fixtures"), path.join(copy, "fixtures"), { recursive: true });
    await cp(path.join(ROOT, "openapi"), path.join(copy, "openapi"), { recursive: true });
    await symlink(path.join(ROOT, "node_modules"), path.join(copy, "node_modules"));
    await writeFile(path.join(copy, "openapi", "send.yaml"), "openapi: 3.1.0\ninfo: { title: broken }\npaths: {}\n");
    const result = await failedStart(["--port", "0"], { cli: path.join(copy, BIN) });
    expect(result.code).not.toBe(0);
    expectOneCleanLine(result.stderr);
    expect(result.stderr).toContain(path.join(copy, "openapi", "send.yaml"));
  });
});

describe("stopping", () => {
  it.each(["SIGTERM", "SIGINT"] as const)("finishes the in-flight request and exits 0 on %s", async (signal) => {
    const mock = await serve(["--port", "0"]);
    const inFlight = await sentOnAcceptedConnection(`${mock.url}/_mock/messages?wait_ms=10000`);
    mock.child.kill(signal);
    const response = await inFlight.response;
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body)).toEqual({ messages: [], total: 0 });
    expect(await mock.exited).toBe(0);
    expect(mock.stderr()).toContain(`${signal} received`);
  });

  it("stops accepting new connections once stopping", async () => {
    const mock = await serve(["--port", "0"]);
    mock.child.kill("SIGTERM");
    expect(await mock.exited).toBe(0);
    await expect(fetch(`${mock.url}/_mock/health`)).rejects.toThrow();
  });
});
