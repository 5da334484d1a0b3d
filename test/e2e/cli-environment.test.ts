// `sendmock serve` configured the way the executable and the image are: every key from `SENDMOCK_<KEY>`, a host open on
// purpose with allow_open_admin, and a server that stops with the client that started it (--stop-with-parent).

import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CLI, runCli, serveCli, type CliOptions } from "../support/cli-process.js";
import { aSendRequest } from "../support/helpers.js";
import { stillRunning } from "../support/npm-process.js";

const running: ChildProcess[] = [];

afterEach(() => {
  for (const child of running.splice(0)) child.kill("SIGKILL");
});

const serve = (args: string[], options: CliOptions = {}) => serveCli(["--port", "0", ...args], running, options);

async function failedStart(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const started = runCli(["serve", "--port", "0"], running, { env });
  return { code: await started.exited, stderr: started.stderr() };
}

const sendWithKey = (url: string, key: string) =>
  fetch(`${url}/send`, {
    method: "POST",
    headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
    body: JSON.stringify(aSendRequest()),
  });

/**
 * Whether a process of this machine with that pid still runs. One that has exited (a zombie) is
 * gone, though `kill -0` finds it until init reaps it: here init reaped the orphaned server ~1.5 s
 * after it exited, and waiting for that made the --stop-with-parent test 2.2-2.4 s instead of 0.5 s.
 */
function alive(pid: number): boolean {
  return stillRunning([pid]).length > 0;
}

describe("settings from the environment", () => {
  it("takes every key as SENDMOCK_<KEY>: text as written, lists and mappings as JSON or YAML", async () => {
    const mock = await serve([], {
      env: {
        SENDMOCK_RESPONSE_SHAPE: "b",
        SENDMOCK_API_KEYS: "[env-key-1234]",
        SENDMOCK_RATE_LIMIT: '{"requests": 5, "per_seconds": 60}',
        SENDMOCK_STRICT_DATA: "true",
        // Digits only: a token, as the key takes text, not the number YAML would read.
        SENDMOCK_ADMIN_TOKEN: "12345678",
      },
    });
    const config = await fetch(`${mock.url}/_mock/config`, { headers: { Authorization: "Bearer 12345678" } });
    expect(config.status).toBe(200);
    expect(await config.json()).toMatchObject({
      response_shape: "b",
      api_keys: ["1234"],
      strict_data: true,
      rate_limit: { requests: 5, per_seconds: 60, burst: 5 },
      admin_token_set: true,
    });
    expect((await sendWithKey(mock.url, "other-key-0000")).status).toBe(401);
    const sent = await sendWithKey(mock.url, "env-key-1234");
    expect(await sent.json()).toMatchObject({ status: "success" });
  });

  it("lets a flag win over its key's variable, and the variable over the config file", async () => {
    const folder = await mkdtemp(path.join(os.tmpdir(), "sendmock-env-"));
    const file = path.join(folder, "sendmock.json");
    await writeFile(file, JSON.stringify({ response_shape: "b", capacity: 7 }));
    const mock = await serve(["--config", file, "--shape", "a"], { env: { SENDMOCK_RESPONSE_SHAPE: "b", SENDMOCK_CAPACITY: "9" } });
    expect(await (await fetch(`${mock.url}/_mock/config`)).json()).toMatchObject({ response_shape: "a", capacity: 9 });
  });

  it.each([
    [{ SENDMOCK_RESPONSE_SHAPE: "z" }, "environment: SENDMOCK_RESPONSE_SHAPE must be a or b"],
    [{ SENDMOCK_CAPACITY: "0" }, "environment: SENDMOCK_CAPACITY must be at least 1"],
    [{ SENDMOCK_RATE_LIMIT: "{requests: 5}" }, "environment: SENDMOCK_RATE_LIMIT.per_seconds is required"],
  ])("refuses a bad variable %o with one line naming it, exit 1", async (env, line) => {
    const result = await failedStart(env);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(`sendmock: ${line}\n`);
  });
});

describe("allow_open_admin", () => {
  it("listens on a non-loopback host without admin_token when set, and the banner says the API is open", async () => {
    const mock = await serve(["--host", "0.0.0.0"], { env: { SENDMOCK_ALLOW_OPEN_ADMIN: "true" } });
    expect(mock.stdout()).toMatch(/admin: +open: no admin_token, so whoever reaches http:\/\/0\.0\.0\.0:\d+ reads every email/);
    const port = new URL(mock.url).port;
    expect(await (await fetch(`http://127.0.0.1:${port}/_mock/config`)).json()).toMatchObject({ allow_open_admin: true, admin_token_set: false });
  });

  it("is refused without it, the refusal naming the way out", async () => {
    const result = await failedStart({ SENDMOCK_HOST: "0.0.0.0" });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("refusing to listen on 0.0.0.0 without admin_token");
    expect(result.stderr).toContain("allow_open_admin: true listens all the same");
    expect(result.stderr).toContain("(environment: SENDMOCK_HOST)");
  });
});

describe("--stop-with-parent", () => {
  it("stops the server once the process that started it is killed outright", async () => {
    // The parent: a shell that starts sendmock, says its pid, and waits; none of a package manager's variables, which would
    // make sendmock watch its parent anyway.
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("npm_")));
    const parent = spawn("sh", ["-c", `"${process.execPath}" "${CLI}" serve --port 0 --stop-with-parent & echo "pid $!"; wait`], { env });
    running.push(parent);
    let output = "";
    parent.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    await expect.poll(() => /listening on http/.test(output), { timeout: 30_000 }).toBe(true);
    const pid = Number(/pid (\d+)/.exec(output)?.[1]);
    expect(alive(pid)).toBe(true);

    parent.kill("SIGKILL");

    await expect.poll(() => alive(pid), { timeout: 30_000, interval: 100 }).toBe(false);
  });
});
