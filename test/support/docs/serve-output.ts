// What `sendmock serve` prints, as the docs show it: the banner and the request log for the configuration and requests they show, and each start error.

import { cpSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { expect, vi } from "vitest";
import { ROOT, runCli, type CliRun } from "../cli-process.js";
import { differences, jsonValues } from "./expectations.js";
import { FIRST_SEND, type Block } from "./pages.js";
import { aClosedPort, stopped, type DocsRig } from "./rig.js";

/** The configuration the docs' banner shows, and the folder layout it names (/app stands for the folder). */
const BANNER_CONFIG = [
  "rate_limit: { requests: 50, per_seconds: 10 }",
  "faults:",
  '  - { fault: server_error, status: 503, times: 3, match: { to: "*@down.example.com" } }',
  "  - { fault: latency, delay_ms: 200 }",
  "",
].join("\n");

export async function checkBanner(block: Block, rig: DocsRig): Promise<void> {
  const folder = await rig.aFolder();
  cpSync(path.join(ROOT, "fixtures/templates"), path.join(folder, "email-templates"), { recursive: true });
  await writeFile(path.join(folder, "sendmock.yaml"), BANNER_CONFIG);
  const started = await rig.listening(["serve", "--port", "0", "--templates", "email-templates", "--config", "sendmock.yaml"], { cwd: folder });
  try {
    const documented = block.code.trimEnd().split("\n");
    await vi.waitFor(() => expect(started.stdout().split("\n").length).toBeGreaterThan(documented.length));
    const port = new URL(started.url).port;
    const printed = started.stdout().replaceAll(folder, "/app").replaceAll(`127.0.0.1:${port}`, "127.0.0.1:4010").split("\n").slice(0, documented.length);
    expect(printed).toEqual(documented);
  } finally {
    await stopped(started);
  }
}

const LOG_LINE = /^\d\d:\d\d:\d\d\.\d{3} /;

function normalisedLogLine(line: string): string {
  return line
    .replace(LOG_LINE, "HH:MM:SS.mmm ")
    .replace(/msg_[0-9a-f-]{36}/, "msg_ID")
    .replace(/ [\d.]+ms$/, " Nms");
}

/** The send a log line records: its `to`, `template_id` and the key whose hint it shows. */
function sendOfLogLine(fields: { to: string; template_id: string; hint: string }): RequestInit {
  return {
    method: "POST",
    headers: { Authorization: `Bearer test-key-${fields.hint}`, "Content-Type": "application/json" },
    body: JSON.stringify({ ...FIRST_SEND, to: fields.to, template_id: fields.template_id }),
  };
}

/** The request log's example: the server_error rule of the banner's configuration, without its latency rule (which every line would name). */
const LOG_CONFIG = ["faults:", '  - { fault: server_error, status: 503, times: 3, match: { to: "*@down.example.com" } }', ""].join("\n");

export async function checkTextLog(block: Block, rig: DocsRig): Promise<void> {
  const folder = await rig.aFolder();
  await writeFile(path.join(folder, "sendmock.yaml"), LOG_CONFIG);
  const started = await rig.listening(["serve", "--port", "0", "--config", "sendmock.yaml"], { cwd: folder });
  try {
    await sendsLogged(started, block);
  } finally {
    await stopped(started);
  }
}

async function sendsLogged(started: CliRun & { url: string }, block: Block): Promise<void> {
  for (const line of block.code.trimEnd().split("\n")) {
    const fields = /to=(\S+) template_id=(\S+) .*key=…(\S+)/.exec(line);
    if (!fields) throw new Error(`not a request log line: ${line}`);
    const before = started
      .stdout()
      .split("\n")
      .filter((printed) => LOG_LINE.test(printed)).length;
    await fetch(`${started.url}/send`, sendOfLogLine({ to: fields[1] ?? "", template_id: fields[2] ?? "", hint: fields[3] ?? "" }));
    await vi.waitFor(() =>
      expect(
        started
          .stdout()
          .split("\n")
          .filter((printed) => LOG_LINE.test(printed)).length,
      ).toBe(before + 1),
    );
    const printed =
      started
        .stdout()
        .split("\n")
        .filter((printed) => LOG_LINE.test(printed))
        .at(-1) ?? "";
    expect(normalisedLogLine(printed)).toBe(normalisedLogLine(line));
  }
}

export async function checkJsonLog(block: Block, rig: DocsRig): Promise<void> {
  const [documented] = jsonValues(block.code) as Record<string, unknown>[];
  if (documented === undefined) throw new Error("no log line");
  const started = await rig.listening(["serve", "--port", "0", "--log-format", "json"], { cwd: await rig.aFolder() });
  try {
    const hint = String(documented.api_key_hint);
    await fetch(`${started.url}/send`, sendOfLogLine({ to: String(documented.to), template_id: String(documented.template_id), hint }));
    await vi.waitFor(() => expect(started.stdout()).toContain('"path":"/send"'));
    const printed = JSON.parse(
      started
        .stdout()
        .split("\n")
        .find((line) => line.includes('"path":"/send"')) ?? "",
    ) as Record<string, unknown>;
    expect(Object.keys(printed)).toEqual(Object.keys(documented));
    expect(differences({ ...documented, message_id: "msg_…" }, printed)).toEqual([]);
  } finally {
    await stopped(started);
  }
}

// ---------------------------------------------------------------------------------------------
// Start errors: each documented line, printed by a start that fails that way.

interface FailedStart {
  /** Files made in the folder the start runs in (/app in the docs). */
  files?: Record<string, string>;
  args: string[];
  env?: Record<string, string>;
  /** A port where nothing listens, for the line's 6379. */
  closedRedisPort?: boolean;
}

const bad = (yaml: string): FailedStart => ({ files: { "sendmock.yaml": yaml }, args: ["--port", "0", "--config", "sendmock.yaml"] });

/** How each documented start error comes about; a line not here has no way to be checked. */
const FAILED_STARTS: Record<string, FailedStart> = {
  "sendmock: config file /app/sendmock.yaml: capacity must be at least 1": bad("capacity: 0\n"),
  "sendmock: templates folder /app/email-templates does not exist": { args: ["--port", "0", "--templates", "email-templates"] },
  "sendmock: config file /app/sendmock.yaml: rate_limit.per_seconds is required": bad("rate_limit: { requests: 2 }\n"),
  "sendmock: config file /app/sendmock.yaml: rate_limit: unknown key per_second (did you mean per_seconds?)": bad(
    "rate_limit: { requests: 2, per_second: 1 }\n",
  ),
  "sendmock: config file /app/sendmock.yaml: rate_limit.requests must be at least 1": bad("rate_limit: { requests: 0, per_seconds: 1 }\n"),
  "sendmock: config file /app/sendmock.yaml: api_keys must list at least one key": bad("api_keys: []\n"),
  "sendmock: config file /app/sendmock.yaml: api_keys[0] must not be empty": bad('api_keys: [""]\n'),
  "sendmock: config file /app/sendmock.yaml: admin_token must be at least 8 characters": bad("admin_token: short\n"),
  "sendmock: config file /app/sendmock.yaml: seed must be a whole number": bad("seed: 1.5\n"),
  'sendmock: config file /app/sendmock.yaml: body_limit must be a size of at least 1B, such as "1mb" or "500kb"': bad('body_limit: "0b"\n'),
  "sendmock: config file /app/sendmock.yaml, line 3, column 1: Flow sequence in block collection must be sufficiently indented and end with a ]": bad(
    "port: 4010\nrate_limit: [\nstrict_data: true\n",
  ),
  "sendmock: command line: --redis-url must be a Redis URL such as redis://127.0.0.1:6379": { args: ["--port", "0", "--redis-url", "http://127.0.0.1:6379"] },
  "error: option '--port <port>' value 'abc' from env 'SENDMOCK_PORT' is invalid. must be a whole number from 0 to 65535": {
    args: [],
    env: { SENDMOCK_PORT: "abc" },
  },
  "sendmock: environment: SENDMOCK_RATE_LIMIT.per_seconds is required": { args: ["--port", "0"], env: { SENDMOCK_RATE_LIMIT: "{requests: 5}" } },
  "sendmock: templates folder /app/nowhere does not exist (environment: SENDMOCK_TEMPLATES)": { args: ["--port", "0"], env: { SENDMOCK_TEMPLATES: "nowhere" } },
  "sendmock: redis store at redis://127.0.0.1:6379 is unreachable: connect ECONNREFUSED 127.0.0.1:6379": { args: ["--port", "0"], closedRedisPort: true },
  "sendmock: refusing to listen on 0.0.0.0 without admin_token: anyone who can reach it could read every captured email. Set admin_token, or use a loopback host such as 127.0.0.1 (allow_open_admin: true listens all the same)":
    { args: ["--port", "0", "--host", "0.0.0.0"] },
};

async function printedStartError(failing: FailedStart, rig: DocsRig): Promise<string> {
  const folder = await rig.aFolder();
  for (const [name, text] of Object.entries(failing.files ?? {})) await writeFile(path.join(folder, name), text);
  const port = failing.closedRedisPort === true ? String(await aClosedPort()) : undefined;
  const args = port === undefined ? failing.args : [...failing.args, "--redis-url", `redis://127.0.0.1:${port}`];
  const started = runCli(["serve", ...args], rig.children, { cwd: folder, env: failing.env ?? {} });
  const code = await started.exited;
  expect(code, started.stdout()).toBe(1);
  const printed = started.stderr().trim().replaceAll(folder, "/app");
  return port === undefined ? printed : printed.replaceAll(`127.0.0.1:${port}`, "127.0.0.1:6379");
}

/** Each start error of the block, with the lines its start prints after it: a line no failing start begins is not checkable. */
export async function checkStartErrors(block: Block, rig: DocsRig): Promise<void> {
  const lines = block.code.trimEnd().split("\n");
  const starts = lines.flatMap((line, at) => {
    const failing = FAILED_STARTS[line];
    return failing === undefined ? [] : [{ at, printed: printedStartError(failing, rig) }];
  });
  expect(starts[0]?.at, `${lines[0]}: no failing start prints it (FAILED_STARTS)`).toBe(0);
  for (const [index, start] of starts.entries()) {
    const shown = lines.slice(start.at, starts[index + 1]?.at ?? lines.length);
    expect((await start.printed).split("\n"), `printed by the start that fails with: ${shown[0]}`).toEqual(shown);
  }
}
