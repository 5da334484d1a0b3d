// What `sendmock serve` prints: the banner, a line per /send (text or JSON, --quiet, --verbose), --version, and the SENDMOCK_* environment.

import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { createServer, type AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, onTestFinished } from "vitest";
import { ROOT, runCli, serveCli, type CliRun } from "../support/cli-process.js";
import { aSendRequest } from "../support/helpers.js";

const SECRET_KEY = "sk-live-SECRET-4242";
const OTHER_KEY = "rule-key-SECRET-7777";

const running: ChildProcess[] = [];

afterEach(() => {
  for (const child of running.splice(0)) child.kill("SIGKILL");
});

function run(args: string[], env: Record<string, string> = {}): CliRun {
  return runCli(args, running, { env });
}

/** `sendmock serve ...args`, once it has printed the URL it serves on. */
function serve(args: string[], env: Record<string, string> = {}): Promise<CliRun & { url: string }> {
  return serveCli(args, running, { env });
}

function send(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${url}/send`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${SECRET_KEY}`, ...headers },
    body: JSON.stringify(body),
  });
}

/** Waits until stdout holds `count` lines after the banner that match `pattern`. */
async function linesMatching(server: CliRun, pattern: RegExp, count: number): Promise<string[]> {
  let found: string[] = [];
  await expect
    .poll(() => {
      found = server
        .stdout()
        .split("\n")
        .filter((line) => pattern.test(line));
      return found.length;
    })
    .toBeGreaterThanOrEqual(count);
  return found;
}

async function tempDir(): Promise<string> {
  return mkdtemp(path.join(os.tmpdir(), "sendmock-log-"));
}

async function aConfigFile(folder: string, name: string, yaml: string): Promise<string> {
  const file = path.join(folder, name);
  await writeFile(file, yaml);
  return file;
}

/** A templates folder holding one template, `id`, that needs no data. */
async function aTemplatesFolder(id: string): Promise<string> {
  const folder = await tempDir();
  await writeFile(path.join(folder, `${id}.yaml`), `subject: ${id}\ntext: from the ${id} folder\n`);
  return folder;
}

describe("the request log of sendmock serve", () => {
  it("starts with a banner naming the URL, inbox, templates, config, store, rate limit and faults, then prints one text line per /send without any key", async () => {
    const folder = await tempDir();
    const config = await aConfigFile(
      folder,
      "sendmock.yaml",
      [
        "rate_limit: { requests: 50, per_seconds: 10 }",
        "faults:",
        `  - { fault: server_error, status: 503, match: { to: "*@down.example.com", api_key: ${OTHER_KEY} } }`,
        "  - { fault: latency, delay_ms: 5 }",
      ].join("\n"),
    );
    const server = await serve(["--port", "0", "--config", config]);

    const banner = server.stdout();
    expect(banner).toContain(`sendmock listening on ${server.url}\n`);
    expect(banner).toContain(`inbox:      ${server.url}/_mock/\n`);
    expect(banner).toMatch(new RegExp(`templates: +4 loaded from ${path.join(ROOT, "fixtures", "templates")}\n`));
    expect(banner).toContain(`config:     ${config}\n`);
    expect(banner).toContain("store:      memory\n");
    expect(banner).toContain("rate limit: 50 requests per 10 s per API key, burst 50\n");
    expect(banner).toContain("faults:     2 rules\n");
    expect(banner).toContain(`server_error to=*@down.example.com api_key=…7777 status=503\n`);
    expect(banner).toContain("latency delay_ms=5\n");

    expect((await send(server.url, aSendRequest())).status).toBe(200);
    expect((await send(server.url, { to: "ada@example.com", data: {} })).status).toBe(400);
    expect((await send(server.url, aSendRequest({ to: "ops@down.example.com" }), { Authorization: `Bearer ${OTHER_KEY}` })).status).toBe(503);
    await fetch(`${server.url}/_mock/messages`);

    const [accepted, refused, failed] = await linesMatching(server, / POST \/send /, 3);
    expect(accepted).toMatch(/^\d\d:\d\d:\d\d\.\d{3} POST \/send 200 msg_[\w-]+ to=ada@example\.com template_id=welcome fault=latency key=…4242 \d+\.\dms$/);
    expect(refused).toMatch(/ POST \/send 400 missing_required_field to=ada@example\.com key=…4242 \d+\.\dms$/);
    expect(failed).toMatch(/ POST \/send 503 server_error to=ops@down\.example\.com template_id=welcome fault=server_error key=…7777 /);
    expect(server.stdout(), "the /_mock calls are left out without --verbose").not.toContain("/_mock/messages 200");
    const output = server.stdout() + server.stderr();
    expect(output).not.toContain(SECRET_KEY);
    expect(output).not.toContain(OTHER_KEY);
  });

  it("with --log-format json, writes pino's JSON lines: the banner, each /send with its fields as keys and, with --verbose, each /_mock call", async () => {
    const server = await serve(["--port", "0", "--log-format", "json", "--verbose"]);
    expect((await send(server.url, aSendRequest())).status).toBe(200);
    expect((await send(server.url, aSendRequest({ to: "not-an-address" }))).status).toBe(422);
    expect((await fetch(`${server.url}/_mock/messages`)).status).toBe(200);
    await linesMatching(server, /\/_mock\/messages/, 1);

    const records = server
      .stdout()
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const banner = records[0];
    const accepted = records.find((record) => record.status === 200 && record.path === "/send");
    const refused = records.find((record) => record.status === 422);
    const inspection = records.find((record) => record.path === "/_mock/messages");
    expect(banner).toMatchObject({ level: 30, msg: `sendmock listening on ${server.url}`, url: server.url, inbox: `${server.url}/_mock/`, config: null });
    expect(banner).toMatchObject({ store: { kind: "memory" }, rate_limit: null, faults: [], templates: { loaded: 4, broken: 0 } });
    expect(accepted).toMatchObject({ level: 30, method: "POST", path: "/send", status: 200, error_code: null, to: "ada@example.com", template_id: "welcome" });
    expect(accepted).toMatchObject({ fault: null, api_key_hint: "4242", message_id: expect.stringMatching(/^msg_/) as unknown });
    expect(accepted?.duration_ms).toBeTypeOf("number");
    expect(accepted?.time).toBeTypeOf("number");
    expect(refused).toMatchObject({ status: 422, error_code: "invalid_recipient", message_id: null, to: "not-an-address" });
    expect(inspection).toMatchObject({ method: "GET", path: "/_mock/messages", status: 200 });
    expect(inspection?.duration_ms).toBeTypeOf("number");
    expect(server.stdout()).not.toContain(SECRET_KEY);
  });

  it("with --quiet, prints the banner and the stop but no line per request", async () => {
    const server = await serve(["--port", "0", "--quiet"]);
    const banner = server.stdout();
    expect((await send(server.url, aSendRequest())).status).toBe(200);
    expect((await send(server.url, {})).status).toBe(400);
    // The journal is written when the response's connection closes, as the log line would be.
    await expect.poll(async () => ((await (await fetch(`${server.url}/_mock/requests`)).json()) as { total: number }).total).toBe(2);
    server.child.kill("SIGTERM");
    expect(await server.exited).toBe(0);
    expect(server.stdout()).toBe(banner);
    expect(server.stderr()).toContain("sendmock: SIGTERM received");
  });
});

describe("the command line", () => {
  it("prints the package's version with --version", async () => {
    const { version } = JSON.parse(await readFile(path.join(ROOT, "package.json"), "utf8")) as { version: string };
    const result = run(["--version"]);
    expect(await result.exited).toBe(0);
    expect(result.stdout()).toBe(`${version}\n`);
  });

  it("takes SENDMOCK_PORT, SENDMOCK_HOST, SENDMOCK_TEMPLATES and SENDMOCK_CONFIG over the config file, and a flag over each", async () => {
    const folder = await tempDir();
    const [fileTemplates, envTemplates, flagTemplates] = await Promise.all([
      aTemplatesFolder("from-file"),
      aTemplatesFolder("from-env"),
      aTemplatesFolder("from-flag"),
    ]);
    // A port already taken: a start that used it, rather than the setting that should win, fails.
    const taken = createServer().listen(0, "127.0.0.1");
    await once(taken, "listening");
    onTestFinished(() => void taken.close());
    const takenPort = String((taken.address() as AddressInfo).port);
    const fileConfig = await aConfigFile(folder, "file.yaml", `port: ${takenPort}\nhost: localhost\ntemplates: ${fileTemplates}\n`);
    const flagConfig = await aConfigFile(folder, "flag.yaml", "response_shape: b\n");
    const env = { SENDMOCK_CONFIG: fileConfig, SENDMOCK_PORT: "0", SENDMOCK_HOST: "127.0.0.1", SENDMOCK_TEMPLATES: envTemplates };

    const fromEnvironment = await serve([], env);
    expect(fromEnvironment.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(fromEnvironment.stdout()).toContain(`config:     ${fileConfig}\n`);
    expect(fromEnvironment.stdout()).toContain(`1 loaded from ${envTemplates}\n`);

    const fromFlags = await serve(["--port", "0", "--host", "localhost", "--templates", flagTemplates, "--config", flagConfig], {
      ...env,
      SENDMOCK_PORT: takenPort,
    });
    expect(fromFlags.url).toMatch(/^http:\/\/localhost:\d+$/);
    expect(fromFlags.stdout()).toContain(`config:     ${flagConfig}\n`);
    expect(fromFlags.stdout()).toContain(`1 loaded from ${flagTemplates}\n`);
  });

  it("refuses a bad SENDMOCK_PORT as it refuses a bad --port, naming the variable", async () => {
    const badFlag = run(["serve", "--port", "abc"]);
    const badVariable = run(["serve"], { SENDMOCK_PORT: "abc" });
    const [flagCode, variableCode] = await Promise.all([badFlag.exited, badVariable.exited]);
    expect(variableCode).not.toBe(0);
    expect(variableCode).toBe(flagCode);
    expect(badVariable.stderr()).toContain("SENDMOCK_PORT");
    expect(badVariable.stderr()).toContain("must be a whole number from 0 to 65535");
    expect(badVariable.stderr()).not.toMatch(/\n\s+at /);
  });
});

describe("a log nobody reads", () => {
  it("never stops the server: lines past --log-buffer are dropped and counted once stdout is read again, and SIGTERM still exits", async () => {
    const server = await serve(["--port", "0", "--log-buffer", "16kb"]);
    // The parent stops reading, as a test harness that spawned the mock and forgot stdout would.
    server.child.stdout.pause();
    // ~120 bytes a line: far more than the 64 KB pipe and the 16 KB buffer together.
    for (let index = 0; index < 1500; index += 1) {
      const response = await send(server.url, aSendRequest({ to: "unread@example.com" }), { Authorization: "Bearer test-key-1234" });
      expect(response.status).toBe(200);
    }
    server.child.stdout.resume();
    // Once the log is read again, the next line is preceded by the count of those it lost; a
    // notice goes out whenever room opens for it, so a pause may be told in more than one.
    const lostLines = (): number => [...server.stdout().matchAll(/sendmock: (\d+) log line\(s\) dropped/g)].reduce((sum, match) => sum + Number(match[1]), 0);
    const loggedUnread = (): number => server.stdout().match(/ POST \/send 200 \S+ to=unread@example\.com /g)?.length ?? 0;
    await expect
      .poll(async () => {
        await (await send(server.url, aSendRequest(), { Authorization: "Bearer test-key-1234" })).arrayBuffer();
        // Each send made while nobody read is either logged or counted as lost, once all is read.
        return loggedUnread() + lostLines();
      })
      .toBeGreaterThanOrEqual(1500);
    expect(lostLines()).toBeGreaterThan(0);

    server.child.stdout.pause();
    for (let index = 0; index < 1000; index += 1) await (await send(server.url, aSendRequest(), { Authorization: "Bearer test-key-1234" })).arrayBuffer();
    // The process's exit, not `exited`: that waits for all its output to be read, and this
    // stdout is left unread on purpose.
    const exitCode = new Promise<number | null>((resolve) => server.child.once("exit", resolve));
    server.child.kill("SIGTERM");
    expect(await exitCode).toBe(0);
  }, 60_000);
});
