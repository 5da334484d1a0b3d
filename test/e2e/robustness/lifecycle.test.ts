// Nothing is lost when the mock stops or its templates folder goes away: SIGTERM under load
// responds to every request already sent and exits 0; a close under load keeps every accepted
// message; a folder that disappears or turns unreadable is reported while the templates
// loaded before keep being served.

import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { startSendMock, type RunningSendMock, type TemplateList, type TemplateSummary } from "../../../src/index.js";
import { CLI, ROOT } from "../../support/cli-process.js";
import { bearer } from "../../support/helpers.js";
import { messageIdOf, sendConcurrently, type LoadRun, type SendResult } from "./load-client.js";

const CONCURRENCY = 100;
// Enough responses that keep-alive sockets are being reused when the stop comes.
const RESPONSES_BEFORE_STOP = 500;
const EXIT_DEADLINE_MS = 5_000;
const LOAD_TEST_TIMEOUT_MS = 60_000;
const RELOAD_TIMEOUT = { timeout: 5_000, interval: 20 };

const children: ChildProcess[] = [];
const mocks: RunningSendMock[] = [];
const folders: string[] = [];

afterEach(async () => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
  await Promise.all(mocks.splice(0).map((mock) => mock.close()));
  for (const folder of folders.splice(0)) {
    // Restores the access a test may have removed, so the folder can be deleted.
    await chmod(folder, 0o700).catch(() => undefined);
    await rm(folder, { recursive: true, force: true });
  }
});

interface ServingProcess {
  child: ChildProcess;
  url: string;
  stderr: () => string;
  exited: Promise<number | null>;
}

/**
 * Root reads any file whatever its mode. Without the two capabilities that let it, root is held
 * to the modes like anyone, so a folder made unreadable is unreadable to the mock too.
 */
const WITHOUT_FILE_OVERRIDE = ["setpriv", "--bounding-set=-dac_override,-dac_read_search", "--inh-caps=-dac_override,-dac_read_search", "--"] as const;

/** Starts `sendmock serve --port 0 ...args` and resolves once it prints the URL it serves on. */
async function serveInChild(args: string[] = [], options: { heldToFileModes?: boolean } = {}): Promise<ServingProcess> {
  const command = [
    ...(options.heldToFileModes === true && RUNNING_AS_ROOT ? WITHOUT_FILE_OVERRIDE : []),
    process.execPath,
    CLI,
    "serve",
    "--port",
    "0",
    ...args,
  ];
  const child = spawn(command[0] ?? process.execPath, command.slice(1), { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  let stdout = "";
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  // "close": once its stderr has all been read, which the checks of its stop line need.
  const exited = new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout);
      if (match?.[1]) resolve(match[1]);
    });
    void exited.then((code) => reject(new Error(`sendmock exited with ${String(code)} before listening: ${stderr}`)));
  });
  return { child, url, stderr: () => stderr, exited };
}

/** The exit code, or "still running" once `deadlineMs` have passed without an exit. */
async function exitOrDeadline(server: ServingProcess, deadlineMs: number): Promise<number | null | "still running"> {
  let deadline: NodeJS.Timeout | undefined;
  const stillRunning = new Promise<"still running">((resolve) => (deadline = setTimeout(() => resolve("still running"), deadlineMs)));
  try {
    return await Promise.race([server.exited, stillRunning]);
  } finally {
    clearTimeout(deadline);
  }
}

/**
 * Starts the load and resolves, with the load still running, once every connection has been
 * responded at least once and `minimum` responses came back. Waiting for every connection matters:
 * under a saturated keep-alive load Node accepts new connections slowly, and a connection the
 * server never accepted is reset when it stops listening, whatever the close does.
 */
function loadUntilEveryConnectionResponded(url: string, minimum: number): { warm: Promise<void>; done: Promise<LoadRun> } {
  let responses = 0;
  const respondedConnections = new Set<number>();
  let becomeWarm: () => void = () => undefined;
  let neverWarm: (error: Error) => void = () => undefined;
  const warm = new Promise<void>((resolve, reject) => {
    becomeWarm = resolve;
    neverWarm = reject;
  });
  const done = sendConcurrently({
    url,
    concurrency: CONCURRENCY,
    onResult: (result) => {
      if (result.kind !== "answered") return;
      responses += 1;
      if (result.connection !== undefined) respondedConnections.add(result.connection);
      if (responses >= minimum && respondedConnections.size >= CONCURRENCY) becomeWarm();
    },
  });
  // Settling twice is a no-op, so this only fails a wait that is still pending when the load ends.
  void done.then((run) => {
    neverWarm(new Error(`the load ended before every connection was answered: ${JSON.stringify(countBy(run.results, outcomeOf))}`));
  });
  return { warm, done };
}

function writtenBefore(run: LoadRun, moment: number): SendResult[] {
  return run.results.filter((result) => result.writtenAt !== undefined && result.writtenAt < moment);
}

/** Each result that is not a 200 with a message id, described, so a failure shows what went wrong. */
function notAccepted(results: readonly SendResult[]): string[] {
  return results.flatMap((result) => {
    if (messageIdOf(result) !== undefined) return [];
    const outcome = result.kind === "answered" ? `status ${result.status}` : result.code;
    return [`#${result.index} on connection ${String(result.connection)}: ${outcome}`];
  });
}

function countBy(results: readonly SendResult[], key: (result: SendResult) => string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const result of results) counts[key(result)] = (counts[key(result)] ?? 0) + 1;
  return counts;
}

const outcomeOf = (result: SendResult): string => (result.kind === "answered" ? String(result.status) : result.code);

/** A library mock under load, closed the way `sendmock serve` closes on SIGTERM (closeOnSignals). */
async function closeUnderLoad(): Promise<{ mock: RunningSendMock; run: LoadRun; closingAt: number }> {
  const mock = await startSendMock({ port: 0, watchTemplates: false });
  mocks.push(mock);
  const load = loadUntilEveryConnectionResponded(mock.url, RESPONSES_BEFORE_STOP);
  await load.warm;
  const closingAt = performance.now();
  await mock.close();
  return { mock, run: await load.done, closingAt };
}

/**
 * The two close-under-load tests assert different facts of one close, so they share its run
 * (started by whichever runs first): a second run cost ~2 s of CPU, a quarter of this file's.
 */
let sharedCloseUnderLoad: ReturnType<typeof closeUnderLoad> | undefined;
function aCloseUnderLoad(): ReturnType<typeof closeUnderLoad> {
  sharedCloseUnderLoad ??= closeUnderLoad();
  return sharedCloseUnderLoad;
}

describe("stopping under load", () => {
  it(
    "on SIGTERM answers every request already sent, refuses new connections, and exits 0",
    async () => {
      const server = await serveInChild();
      const load = loadUntilEveryConnectionResponded(server.url, RESPONSES_BEFORE_STOP);
      await load.warm;

      const signalledAt = performance.now();
      server.child.kill("SIGTERM");
      const exitCode = await exitOrDeadline(server, EXIT_DEADLINE_MS);
      const exitMs = performance.now() - signalledAt;
      const run = await load.done;

      const sentBefore = writtenBefore(run, signalledAt);
      const sentAfter = run.results.filter((result) => !sentBefore.includes(result));
      console.info(`SIGTERM after ${sentBefore.length} sends: exit in ${Math.round(exitMs)} ms; sent later: ${JSON.stringify(countBy(sentAfter, outcomeOf))}`);
      expect(notAccepted(sentBefore)).toEqual([]);
      // A send after the signal gets a response or finds no server (a reset socket, a refused connection), never left hanging.
      expect(sentAfter.filter((result) => result.kind === "failed" && !["ECONNREFUSED", "ECONNRESET"].includes(result.code))).toEqual([]);
      // Every sender ends on a refused connection: the port is closed.
      expect(countBy(sentAfter, outcomeOf).ECONNREFUSED).toBe(CONCURRENCY);
      expect(exitCode).toBe(0);
      expect(exitMs).toBeLessThan(EXIT_DEADLINE_MS);
      expect(server.stderr()).toContain("sendmock: SIGTERM received, finishing in-flight requests");
    },
    LOAD_TEST_TIMEOUT_MS,
  );

  it(
    "closed the way SIGTERM closes it, keeps every message it answered 200 and captures none it did not answer",
    async () => {
      const { mock, run } = await aCloseUnderLoad();

      const acceptedIds = run.results.flatMap((result) => messageIdOf(result) ?? []);
      const missing: string[] = [];
      for (const id of acceptedIds) {
        if ((await mock.outbox.get(id)) === undefined) missing.push(id);
      }
      expect(missing).toEqual([]);
      // A message captured without its 200 reaching the client would be a response lost in the close.
      expect((await mock.outbox.stats()).count).toBe(acceptedIds.length);
    },
    LOAD_TEST_TIMEOUT_MS,
  );

  // http.Server#close destroys every keep-alive socket with no request being handled, including
  // those whose next request is already in the socket: this caught the close resetting them.
  it(
    "closed the way SIGTERM closes it, answers every request sent before the close",
    async () => {
      const { run, closingAt } = await aCloseUnderLoad();

      expect(notAccepted(writtenBefore(run, closingAt))).toEqual([]);
    },
    LOAD_TEST_TIMEOUT_MS,
  );
});

describe("stopping while a client never finishes its request", () => {
  it("exits 0 within shutdown_grace_ms after SIGTERM, though the upload would take request_timeout_ms (120 s)", async () => {
    const folder = await mkdtemp(path.join(os.tmpdir(), "sendmock-grace-"));
    folders.push(folder);
    const config = path.join(folder, "sendmock.yaml");
    await writeFile(config, "shutdown_grace_ms: 500\n");
    const server = await serveInChild(["--config", config]);
    const responded = await fetch(`${server.url}/send`, {
      method: "POST",
      headers: { "Content-Type": "application/json", ...bearer() },
      body: JSON.stringify({ to: "ada@example.com", template_id: "welcome", data: { name: "Ada", company: "Acme", login_url: "https://x.example" } }),
    });
    expect(responded.status).toBe(200);
    // A slow uploader: headers, then the first byte of a 1000-byte body, then nothing. With
    // `Expect: 100-continue` the server says when it has taken the request in: it is in flight.
    const { port } = new URL(server.url);
    const uploader = net.connect(Number(port), "127.0.0.1");
    uploader.on("error", () => undefined);
    await once(uploader, "connect");
    const inFlight = once(uploader, "data");
    uploader.write(
      `POST /send HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer test-key-0001\r\nContent-Type: application/json\r\nContent-Length: 1000\r\nExpect: 100-continue\r\n\r\n`,
    );
    expect(String((await inFlight)[0])).toMatch(/^HTTP\/1\.1 100 Continue/);
    uploader.write("{");

    server.child.kill("SIGTERM");

    expect(await exitOrDeadline(server, 3_000)).toBe(0);
    expect(server.stderr()).toContain("at most 500 ms, shutdown_grace_ms");
    uploader.destroy();
  });
});

const PING_TEMPLATE = "subject: Ping {who}\ntext: Hello {who}\n";
const RUNNING_AS_ROOT = process.getuid?.() === 0;

async function aTemplatesFolder(): Promise<string> {
  const folder = await mkdtemp(path.join(os.tmpdir(), "sendmock-lifecycle-"));
  folders.push(folder);
  await writeFile(path.join(folder, "ping.yaml"), PING_TEMPLATE);
  return folder;
}

async function aMockOnFolder(folder: string): Promise<{ mock: RunningSendMock; logLines: string[] }> {
  const logLines: string[] = [];
  const mock = await startSendMock({ port: 0, templates: folder, log: (line) => logLines.push(line) });
  mocks.push(mock);
  return { mock, logLines };
}

/** Sends the `ping` template and returns the captured message's subject and text. */
async function sendPing(url: string): Promise<{ subject: string; text: string | null }> {
  const response = await fetch(`${url}/send`, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...bearer() },
    body: JSON.stringify({ to: "ada@example.com", template_id: "ping", data: { who: "Ada" } }),
  });
  expect(response.status).toBe(200);
  const { message_id } = (await response.json()) as { message_id: string };
  const { subject, text } = (await (await fetch(`${url}/_mock/messages/${message_id}`)).json()) as { subject: string; text: string | null };
  return { subject, text };
}

async function listedPing(url: string): Promise<TemplateSummary | undefined> {
  const list = (await (await fetch(`${url}/_mock/templates`)).json()) as TemplateList;
  return list.templates.find((template) => template.id === "ping");
}

/** Puts the folder back with an edited `ping` and waits until the mock serves the edit. */
async function expectEditsApplyAgain(url: string, folder: string, logLines: () => string[]): Promise<void> {
  await writeFile(path.join(folder, "ping.yaml"), "subject: Pong {who}\ntext: Hello again {who}\n");
  await vi.waitFor(async () => {
    expect(await listedPing(url)).toMatchObject({ ok: true, error: null, subject: "Pong {who}" });
  }, RELOAD_TIMEOUT);
  expect(await sendPing(url)).toEqual({ subject: "Pong Ada", text: "Hello again Ada" });
  expect(logLines()).toContain(`templates folder ${folder} is available again`);
}

describe("a templates folder that goes away while the mock runs", () => {
  it("reports a deleted folder, keeps serving the templates it had, and applies edits once it is back", async () => {
    const folder = await aTemplatesFolder();
    const { mock, logLines } = await aMockOnFolder(folder);
    expect(await sendPing(mock.url)).toEqual({ subject: "Ping Ada", text: "Hello Ada" });

    await rm(folder, { recursive: true, force: true });
    await vi.waitFor(() => {
      expect(logLines).toContain(`templates folder ${folder} does not exist; still serving the 1 template(s) loaded before`);
    }, RELOAD_TIMEOUT);
    expect(await listedPing(mock.url)).toMatchObject({
      ok: true,
      subject: "Ping {who}",
      error: `templates folder ${folder} does not exist; serving the version loaded before`,
    });
    expect(await sendPing(mock.url)).toEqual({ subject: "Ping Ada", text: "Hello Ada" });

    await mkdir(folder);
    await expectEditsApplyAgain(mock.url, folder, () => logLines);
  });

  it("reports a folder that turns unreadable, keeps serving the templates it had, and applies edits once it is readable", async () => {
    const folder = await aTemplatesFolder();
    const server = await serveInChild(["--templates", folder], { heldToFileModes: true });
    // The command line writes each problem as `sendmock: <the line the library logs>`.
    const logLines = (): string[] =>
      server
        .stderr()
        .split("\n")
        .map((line) => line.replace(/^sendmock: /, ""));
    expect(await sendPing(server.url)).toEqual({ subject: "Ping Ada", text: "Hello Ada" });

    await chmod(folder, 0o000);
    await vi.waitFor(() => {
      expect(logLines()).toContain(`templates folder ${folder} cannot be read: permission denied; still serving the 1 template(s) loaded before`);
    }, RELOAD_TIMEOUT);
    expect(await listedPing(server.url)).toMatchObject({
      ok: true,
      error: `templates folder ${folder} cannot be read: permission denied; serving the version loaded before`,
    });
    expect(await sendPing(server.url)).toEqual({ subject: "Ping Ada", text: "Hello Ada" });

    await chmod(folder, 0o700);
    await expectEditsApplyAgain(server.url, folder, logLines);
  });
});
