// setupSandbox's hooks, run by hand as a framework runs them: a file's own sandbox of a shared sendmock, named at once,
// empty when the file starts, judged and reset after each test, forgotten after the file; and its errors.

import { afterAll, afterEach, describe, expect, it, onTestFinished, vi } from "vitest";
import { fileSandboxName } from "../../src/sandbox-setup.js";
import { setupSandbox, type FileSandbox, type SandboxClient, type SetupSandboxOptions } from "../../src/testing.js";
import { setupSandbox as setupSandboxWithVitestHooks } from "../../src/vitest.js";
import type { RunningSendMock } from "../../src/index.js";
import { aRunningMock, aRunningMockForThisTest, aSendRequest, bearer } from "../support/helpers.js";

/** One test file as a framework sees it: the hooks setupSandbox registered, run by hand. */
interface TestFile {
  sandbox: FileSandbox;
  beforeAll(): Promise<void>;
  afterEach(): Promise<void>;
  afterAll(): Promise<void>;
}

// Started as the file loads: sendmock/vitest's setupSandbox, called as the file is collected, is given its URL at once.
const shared: RunningSendMock = await aRunningMock();
afterAll(() => shared.close());

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
  vi.unstubAllGlobals();
});

function aTestFile(options: SetupSandboxOptions = { url: shared.url }): TestFile {
  const registered = new Map<string, () => Promise<void>>();
  const hook = (name: string) => (fn: () => Promise<void>) => registered.set(name, fn);
  const sandbox = setupSandbox(options, { beforeAll: hook("beforeAll"), afterEach: hook("afterEach"), afterAll: hook("afterAll") });
  const run = (name: string): Promise<void> => {
    const fn = registered.get(name);
    if (fn === undefined) throw new Error(`setupSandbox registered no ${name}`);
    return fn();
  };
  return { sandbox, beforeAll: () => run("beforeAll"), afterEach: () => run("afterEach"), afterAll: () => run("afterAll") };
}

/** A file whose beforeAll has run; its sandbox let go when the test ends, as the file's afterAll would. */
async function aStartedTestFile(options?: SetupSandboxOptions): Promise<TestFile> {
  const file = aTestFile(options);
  await file.beforeAll();
  onTestFinished(() => file.sandbox.forget());
  return file;
}

/** What the app under test does: POST /send, here through the sandbox's base URL. */
async function send(url: string, body: unknown, headers: Record<string, string> = {}): Promise<number> {
  const response = await fetch(`${url}/send`, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...bearer(), ...headers },
    body: JSON.stringify(body),
  });
  await response.arrayBuffer();
  return response.status;
}

async function contentsOf(sandbox: SandboxClient): Promise<{ messages: number; requests: number; faultRules: number; clockOffsetMs: number }> {
  const [messages, journal, faults, clock] = await Promise.all([sandbox.outbox.list(), sandbox.journal.list(), sandbox.faults.list(), sandbox.clock.now()]);
  return { messages: messages.total, requests: journal.total, faultRules: faults.length, clockOffsetMs: clock.offset_ms };
}

const EMPTY = { messages: 0, requests: 0, faultRules: 0, clockOffsetMs: 0 };

async function sandboxesInUse(): Promise<string[]> {
  return ((await (await fetch(`${shared.url}/_mock/sandboxes`)).json()) as { sandboxes: string[] }).sandboxes;
}

describe("the file's sandbox", () => {
  it("is named at the call, after the test file as a global expect says it, lower case with a random suffix, so its address works", async () => {
    vi.stubGlobal("expect", { getState: () => ({ testPath: "/project/test/Checkout Flow_v2.spec.mjs" }) });
    const file = aTestFile();
    expect(file.sandbox.sandbox).toMatch(/^checkout-flow-v2-[0-9a-f]{8}$/);
    expect(file.sandbox.baseUrl).toBe(`${shared.url}/sandbox/${file.sandbox.sandbox}`);
    await file.beforeAll();
    onTestFinished(() => file.sandbox.forget());
    expect(await send(shared.url, aSendRequest({ to: file.sandbox.address("ada") }))).toBe(200);
    expect((await file.sandbox.outbox.list()).messages.map((message) => message.sandbox)).toEqual([file.sandbox.sandbox]);
  });

  it("is another for each file, even two files of the same name, and names a file it cannot see by its suffix alone", () => {
    vi.stubGlobal("expect", { getState: () => ({ testPath: "/project/a/sign-up.test.ts" }) });
    const [first, second] = [aTestFile().sandbox.sandbox, aTestFile().sandbox.sandbox];
    expect(first).toMatch(/^sign-up-[0-9a-f]{8}$/);
    expect(second).toMatch(/^sign-up-[0-9a-f]{8}$/);
    expect(second).not.toBe(first);
    vi.unstubAllGlobals();
    expect(aTestFile().sandbox.sandbox).toMatch(/^file-[0-9a-f]{8}$/);
  });

  it("keeps a long file name within the 64 characters of a sandbox name, ending in letters or digits before its suffix", () => {
    const name = fileSandboxName(`/project/${"very-long-name-".repeat(10)}.test.ts`);
    expect(name.length).toBeLessThanOrEqual(64);
    expect(name).toMatch(/^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?-[0-9a-f]{8}$/);
    expect(fileSandboxName("/project/___.test.ts")).toMatch(/^file-[0-9a-f]{8}$/);
  });

  it("is empty when the file starts, whatever its name held before", async () => {
    const file = aTestFile();
    expect(await send(file.sandbox.baseUrl, aSendRequest())).toBe(200);
    await file.sandbox.faults.add({ fault: "server_error", times: 5 });
    await file.sandbox.clock.advance(60_000);
    await file.beforeAll();
    onTestFinished(() => file.sandbox.forget());
    expect(await contentsOf(file.sandbox)).toEqual(EMPTY);
  });

  it("is reset after each test: messages, journal, fault rules and clock, and no other sandbox's", async () => {
    const [file, neighbour] = [await aStartedTestFile(), await aStartedTestFile()];
    expect(await send(neighbour.sandbox.baseUrl, aSendRequest())).toBe(200);
    expect(await send(file.sandbox.baseUrl, aSendRequest())).toBe(200);
    await file.sandbox.faults.add({ fault: "server_error", times: 5 });
    await file.sandbox.clock.advance(60_000);
    expect(await contentsOf(file.sandbox)).toEqual({ messages: 1, requests: 1, faultRules: 1, clockOffsetMs: 60_000 });
    await file.afterEach();
    expect(await contentsOf(file.sandbox)).toEqual(EMPTY);
    expect((await neighbour.sandbox.outbox.list()).total).toBe(1);
  });

  it("is forgotten after the file: the server no longer counts it against max_sandboxes", async () => {
    const file = aTestFile();
    await file.beforeAll();
    expect(await send(file.sandbox.baseUrl, aSendRequest())).toBe(200);
    expect(await sandboxesInUse()).toContain(file.sandbox.sandbox);
    await file.afterAll();
    expect(await sandboxesInUse()).not.toContain(file.sandbox.sandbox);
  });

  it("takes the server from SENDMOCK_URL and the admin token from SENDMOCK_ADMIN_TOKEN", async () => {
    const guarded = await aRunningMockForThisTest({ adminToken: "admin-secret-1" });
    vi.stubEnv("SENDMOCK_URL", guarded.url);
    vi.stubEnv("SENDMOCK_ADMIN_TOKEN", "admin-secret-1");
    const file = aTestFile({});
    expect(file.sandbox.url).toBe(guarded.url);
    await file.beforeAll();
    expect(await send(file.sandbox.baseUrl, aSendRequest())).toBe(200);
    expect((await file.sandbox.outbox.list()).total).toBe(1);
    await file.afterAll();
  });
});

describe("with vitest's own hooks (sendmock/vitest)", () => {
  const sandbox = setupSandboxWithVitestHooks({ url: shared.url });

  it("is named after this test file, and starts empty", async () => {
    expect(sandbox.sandbox).toMatch(/^setup-sandbox-[0-9a-f]{8}$/);
    expect(await contentsOf(sandbox)).toEqual(EMPTY);
    expect(await send(sandbox.baseUrl, aSendRequest())).toBe(200);
    await sandbox.faults.add({ fault: "server_error", times: 5 });
  });

  it("finds nothing of the test before it", async () => {
    expect(await contentsOf(sandbox)).toEqual(EMPTY);
  });
});

describe("onContractViolation", () => {
  const broken = aSendRequest({ to: 5 as unknown as string });

  it('"error" fails the test whose requests into the sandbox broke the contract, in setupSendMock\'s words, and still resets', async () => {
    const file = await aStartedTestFile({ url: shared.url, onContractViolation: "error" });
    expect(await send(file.sandbox.baseUrl, broken)).toBe(400);
    expect(await send(file.sandbox.baseUrl, aSendRequest())).toBe(200);
    await expect(file.afterEach()).rejects.toThrow(
      [
        "sendmock: 1 request in this test broke the contract (openapi/send.yaml):",
        `  POST /sandbox/${file.sandbox.sandbox}/send -> 400 invalid_request`,
        "    /to: to must be a string",
      ].join("\n"),
    );
    expect(await contentsOf(file.sandbox)).toEqual(EMPTY);
    expect(await send(file.sandbox.baseUrl, aSendRequest())).toBe(200);
    await expect(file.afterEach()).resolves.toBeUndefined();
  });

  it('"error" fails the test whose app forgot its API key: the refusal is journaled in the sandbox its base URL names', async () => {
    const file = await aStartedTestFile({ url: shared.url, onContractViolation: "error" });
    expect(await send(file.sandbox.baseUrl, aSendRequest(), { Authorization: "" })).toBe(401);
    await expect(file.afterEach()).rejects.toThrow(`  POST /sandbox/${file.sandbox.sandbox}/send -> 401 missing_api_key`);
  });

  it("judges only the requests that went into this file's sandbox", async () => {
    const [file, neighbour] = [await aStartedTestFile({ url: shared.url, onContractViolation: "error" }), await aStartedTestFile()];
    expect(await send(neighbour.sandbox.baseUrl, broken)).toBe(400);
    expect(await send(shared.url, broken)).toBe(400);
    await expect(file.afterEach()).resolves.toBeUndefined();
  });

  it('"warn", the default, prints the report and lets the test pass', async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const file = await aStartedTestFile();
    expect(await send(file.sandbox.baseUrl, broken)).toBe(400);
    await expect(file.afterEach()).resolves.toBeUndefined();
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn).toHaveBeenCalledWith(expect.stringContaining("-> 400 invalid_request\n    /to: to must be a string"));
    expect((await file.sandbox.journal.list()).total).toBe(0);
  });

  it('"off" says nothing and still resets', async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const file = await aStartedTestFile({ url: shared.url, onContractViolation: "off" });
    expect(await send(file.sandbox.baseUrl, broken)).toBe(400);
    await expect(file.afterEach()).resolves.toBeUndefined();
    expect(warn).not.toHaveBeenCalled();
    expect((await file.sandbox.journal.list()).total).toBe(0);
  });
});

describe("expectViolation", () => {
  it("lets the test's expected violation through a strict file, and fails the test whose expectation matched nothing", async () => {
    const file = await aStartedTestFile({ url: shared.url, onContractViolation: "error" });
    file.sandbox.expectViolation({ path: "/to", errorCode: "invalid_recipient" });
    expect(await send(file.sandbox.baseUrl, aSendRequest({ to: "ada@@example.com" }))).toBe(422);
    await expect(file.afterEach()).resolves.toBeUndefined();

    file.sandbox.expectViolation({ path: "/to" });
    expect(await send(file.sandbox.baseUrl, aSendRequest())).toBe(200);
    await expect(file.afterEach()).rejects.toThrow('sendmock: expectViolation({"path":"/to"}) in this test matched no request\'s violation');
    expect(await contentsOf(file.sandbox)).toEqual(EMPTY);
  });
});

describe("without a server", () => {
  it("says to add the global setup or set SENDMOCK_URL when neither a url nor SENDMOCK_URL is given, at the call", () => {
    vi.stubEnv("SENDMOCK_URL", undefined);
    expect(() => aTestFile({})).toThrow(
      'sendmock: setupSandbox has no server: SENDMOCK_URL is not set and no url was given. Start one sendmock for the run with the global setup (vitest: globalSetup: ["sendmock/vitest/global-setup"]; jest: globalSetup: "sendmock/jest/global-setup" and globalTeardown: "sendmock/jest/global-teardown"), or set SENDMOCK_URL to a running sendmock',
    );
  });

  it("fails beforeAll saying no sendmock answers at the URL, and leaves the file's other hooks quiet", async () => {
    const gone = await aRunningMock();
    await gone.close();
    const file = aTestFile({ url: gone.url });
    await expect(file.beforeAll()).rejects.toThrow(
      new RegExp(
        `^sendmock: no sendmock answers at ${gone.url.replace(/\./g, "\\.")} \\(.*ECONNREFUSED.*\\): is the global setup in your test config, or does SENDMOCK_URL point at a running sendmock\\?$`,
      ),
    );
    await expect(file.afterEach()).resolves.toBeUndefined();
    await expect(file.afterAll()).resolves.toBeUndefined();
  });

  it("fails beforeAll with the server's answer when it refuses, e.g. without the admin token", async () => {
    const guarded = await aRunningMockForThisTest({ adminToken: "admin-secret-1" });
    const file = aTestFile({ url: guarded.url });
    await expect(file.beforeAll()).rejects.toThrow(`sendmock: POST /_mock/reset in sandbox ${file.sandbox.sandbox} responded with 401`);
  });
});
