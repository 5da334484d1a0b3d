// The test helpers users get (sendmock/testing, sendmock/vitest, sendmock/jest): lifecycle, reset and onContractViolation.

import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { setupSendMock, type SendMockHandle, type SetupSendMockOptions } from "../../src/testing.js";
import { aSendRequest, bearer } from "../support/helpers.js";
import { ROOT, runJest, runVitest } from "../support/test-runners.js";

const files: TestFile[] = [];

afterEach(async () => {
  await Promise.all(files.splice(0).map((file) => file.afterAll()));
  vi.restoreAllMocks();
});

/** One test file as a framework sees it: the hooks setupSendMock registered, run by hand. */
interface TestFile {
  sendmock: SendMockHandle;
  beforeAll(): Promise<void>;
  afterEach(): Promise<void>;
  afterAll(): Promise<void>;
}

function aTestFile(options: SetupSendMockOptions = {}): TestFile {
  const registered = new Map<string, () => Promise<void>>();
  const hook = (name: string) => (fn: () => Promise<void>) => registered.set(name, fn);
  const sendmock = setupSendMock(
    { watchTemplates: false, ...options },
    { beforeAll: hook("beforeAll"), afterEach: hook("afterEach"), afterAll: hook("afterAll") },
  );
  const run = (name: string): Promise<void> => {
    const fn = registered.get(name);
    if (fn === undefined) throw new Error(`setupSendMock registered no ${name}`);
    return fn();
  };
  const file: TestFile = {
    sendmock,
    beforeAll: () => run("beforeAll"),
    afterEach: () => run("afterEach"),
    afterAll: () => run("afterAll"),
  };
  files.push(file);
  return file;
}

async function aStartedTestFile(options: SetupSendMockOptions = {}): Promise<TestFile> {
  const file = aTestFile(options);
  await file.beforeAll();
  return file;
}

/** What the code under test does: POST /send with these headers and this body. */
async function post(sendmock: SendMockHandle, body: string, headers: Record<string, string> = {}): Promise<number> {
  const response = await fetch(`${sendmock.url}/send`, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...bearer(), ...headers },
    body,
  });
  await response.arrayBuffer();
  return response.status;
}

const valid = (): string => JSON.stringify(aSendRequest());

describe("setupSendMock", () => {
  it("starts a listening mock in beforeAll whose url, outbox and faults the tests use", async () => {
    const { sendmock } = await aStartedTestFile();
    expect(sendmock.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await post(sendmock, valid())).toBe(200);
    const message = await sendmock.outbox.waitFor({ to: "ada@example.com" }, { timeoutMs: 2000 });
    expect(message.template_id).toBe("welcome");
  });

  it("says the mock has not started when a test file uses it before beforeAll ran", () => {
    const { sendmock } = aTestFile();
    expect(() => sendmock.url).toThrow(/sendmock: the mock has not started yet: use it inside tests or hooks that run after setupSendMock's beforeAll/);
  });

  it("resets after each test: the next test finds no messages, journal entries or fault rules", async () => {
    const file = await aStartedTestFile();
    await file.sendmock.faults.add({ fault: "server_error", status: 503, times: 5 });
    expect(await post(file.sendmock, valid())).toBe(503);
    await file.sendmock.faults.clear();
    expect(await post(file.sendmock, valid())).toBe(200);
    await file.afterEach();
    expect((await file.sendmock.outbox.list()).total).toBe(0);
    expect((await file.sendmock.journal.list()).total).toBe(0);
    expect(await file.sendmock.faults.list()).toEqual([]);
  });

  it("closes the mock in afterAll, after which using it says so", async () => {
    const file = await aStartedTestFile();
    const url = file.sendmock.url;
    await file.afterAll();
    await expect(fetch(`${url}/_mock/health`)).rejects.toThrow();
    expect(() => file.sendmock.outbox).toThrow("sendmock: the mock of this file is closed: its afterAll hook has run");
  });
});

describe('onContractViolation: "error"', () => {
  it("fails the test whose requests broke the contract, naming each violation, the status and the error code", async () => {
    const file = await aStartedTestFile({ onContractViolation: "error" });
    await post(file.sendmock, JSON.stringify(aSendRequest({ to: 5 as unknown as string })));
    await post(file.sendmock, JSON.stringify({ to: "ada@example.com" }));
    const failure = await file.afterEach().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toBe(
      [
        "sendmock: 2 requests in this test broke the contract (openapi/send.yaml):",
        "  POST /send -> 400 invalid_request",
        "    /to: to must be a string",
        "  POST /send -> 400 missing_required_field",
        "    /template_id: template_id is required",
        "    /data: data is required",
      ].join("\n"),
    );
  });

  it("counts a body that is not JSON, a wrong content type, a missing API key, an unknown field, an invalid address and a GET", async () => {
    const file = await aStartedTestFile({ onContractViolation: "error" });
    await post(file.sendmock, "{not json");
    await post(file.sendmock, valid(), { "Content-Type": "text/plain" });
    await post(file.sendmock, valid(), { Authorization: "" });
    await post(file.sendmock, JSON.stringify({ ...aSendRequest(), priority: "high" }));
    await post(file.sendmock, JSON.stringify(aSendRequest({ to: "not-an-address" })));
    await (await fetch(`${file.sendmock.url}/send`)).arrayBuffer();
    const failure = file.afterEach();
    await expect(failure).rejects.toThrow("sendmock: 6 requests in this test broke the contract");
    await expect(failure).rejects.toThrow(/-> 400 invalid_json\n {4}\/: /);
    await expect(failure).rejects.toThrow("-> 415 unsupported_media_type\n    /headers/content-type: content-type must be application/json");
    await expect(failure).rejects.toThrow("-> 401 missing_api_key\n    /headers/authorization:");
    await expect(failure).rejects.toThrow("    /priority: priority is not a known field");
    await expect(failure).rejects.toThrow("-> 422 invalid_recipient\n    /to: to is not a valid email address");
    await expect(failure).rejects.toThrow("  GET /send -> 405 method_not_allowed\n    /: Method GET is not allowed on /send; use POST");
  });

  it("passes a test whose requests kept the contract, even when answered with a domain error or an injected fault", async () => {
    const file = await aStartedTestFile({ onContractViolation: "error" });
    expect(await post(file.sendmock, valid())).toBe(200);
    expect(await post(file.sendmock, JSON.stringify(aSendRequest({ template_id: "no-such-template" })))).toBe(422);
    await file.sendmock.faults.add({ fault: "server_error", status: 503, times: 1 });
    expect(await post(file.sendmock, valid())).toBe(503);
    await expect(file.afterEach()).resolves.toBeUndefined();
  });

  it("checks only the requests of the test that just ran", async () => {
    const file = await aStartedTestFile({ onContractViolation: "error" });
    await post(file.sendmock, "{not json");
    await expect(file.afterEach()).rejects.toThrow("1 request in this test broke the contract");
    await post(file.sendmock, valid());
    await expect(file.afterEach()).resolves.toBeUndefined();
  });
});

describe("expectViolation: a violation sent on purpose", () => {
  const mistyped = (): string => JSON.stringify(aSendRequest({ to: "ada@@example.com" }));

  it("lets the expected violation through a strict file, for the test it was called in alone", async () => {
    const file = await aStartedTestFile({ onContractViolation: "error" });
    file.sendmock.expectViolation({ path: "/to", to: "ada@@example.com" });
    expect(await post(file.sendmock, mistyped())).toBe(422);
    await expect(file.afterEach()).resolves.toBeUndefined();

    // The next test expects nothing: the same request fails it.
    expect(await post(file.sendmock, mistyped())).toBe(422);
    await expect(file.afterEach()).rejects.toThrow("-> 422 invalid_recipient\n    /to: to is not a valid email address");
  });

  it("still fails on every other violation: another request, and another violation of the same request", async () => {
    const file = await aStartedTestFile({ onContractViolation: "error" });
    file.sendmock.expectViolation({ path: "/to" });
    expect(await post(file.sendmock, mistyped())).toBe(422);
    await post(file.sendmock, JSON.stringify({ ...aSendRequest({ to: "bob@@example.com" }), priority: "high" }));
    await post(file.sendmock, "{not json");
    const failure = await file.afterEach().then(
      () => "",
      (error: unknown) => (error as Error).message,
    );
    expect(failure).toBe(
      [
        "sendmock: 2 requests in this test broke the contract (openapi/send.yaml):",
        "  POST /send -> 400 invalid_request",
        "    /priority: priority is not a known field",
        "  POST /send -> 400 invalid_json",
        `    /: Invalid JSON body: ${failure.split("\n")[4]?.split("Invalid JSON body: ")[1] ?? "(none)"}`,
      ].join("\n"),
    );
  });

  it("fails the test when it matched nothing, whatever the mode: a stale allowance is a bug", async () => {
    for (const mode of ["error", "warn", "off"] as const) {
      const file = await aStartedTestFile({ onContractViolation: mode });
      file.sendmock.expectViolation({ path: "/to", to: "ada@@example.com" });
      expect(await post(file.sendmock, valid())).toBe(200);
      await expect(file.afterEach()).rejects.toThrow(
        'sendmock: expectViolation({"path":"/to","to":"ada@@example.com"}) in this test matched no request\'s violation: the violation it allows did not happen',
      );
      expect((await file.sendmock.journal.list()).total).toBe(0);
    }
  });

  it("refuses a match it could never use, at the call, with a did you mean", async () => {
    const { sendmock } = await aStartedTestFile({ onContractViolation: "error" });
    expect(() => sendmock.expectViolation({ pointer: "/to" } as never)).toThrow('sendmock: expectViolation has no field "pointer"');
    expect(() => sendmock.expectViolation({ errorcode: "invalid_recipient" } as never)).toThrow("(did you mean errorCode?)");
    expect(() => sendmock.expectViolation({ status: "422" } as never)).toThrow('sendmock: expectViolation\'s status must be a number, not "422"');
    expect(() => sendmock.expectViolation({ path: "to" })).toThrow('a JSON pointer such as "/to"');
    expect(() => sendmock.expectViolation("/to" as never)).toThrow('sendmock: expectViolation takes an object such as { path: "/to" }, not /to');
  });
});

describe("onContractViolation as a function: a mode per request", () => {
  it("judges each request by what the function returns for its journal entry", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const file = await aStartedTestFile({
      onContractViolation: (request) => (request.to === "ada@@example.com" ? "off" : request.status === 415 ? "warn" : "error"),
    });
    expect(await post(file.sendmock, JSON.stringify(aSendRequest({ to: "ada@@example.com" })))).toBe(422);
    expect(await post(file.sendmock, valid(), { "Content-Type": "text/plain" })).toBe(415);
    await expect(file.afterEach()).resolves.toBeUndefined();
    expect(warn).toHaveBeenCalledWith(expect.stringContaining("-> 415 unsupported_media_type"));

    await post(file.sendmock, JSON.stringify(aSendRequest({ to: "bob@@example.com" })));
    await expect(file.afterEach()).rejects.toThrow("-> 422 invalid_recipient");
  });

  it("says what it returned when that is no mode", async () => {
    const file = await aStartedTestFile({ onContractViolation: () => "strict" as never });
    await post(file.sendmock, "{not json");
    await expect(file.afterEach()).rejects.toThrow('sendmock: onContractViolation returned "strict" for POST /send -> 400: return "error", "warn" or "off"');
  });
});

describe("onContractViolation: warn and off", () => {
  it('"warn", the default, prints the report and lets the test pass', async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const file = await aStartedTestFile();
    await post(file.sendmock, JSON.stringify(aSendRequest({ to: 5 as unknown as string })));
    await expect(file.afterEach()).resolves.toBeUndefined();
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn).toHaveBeenCalledWith(expect.stringContaining("POST /send -> 400 invalid_request\n    /to: to must be a string"));
    expect((await file.sendmock.journal.list()).total).toBe(0);
  });

  it('"off" says nothing and still resets', async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const file = await aStartedTestFile({ onContractViolation: "off" });
    await post(file.sendmock, "{not json");
    await expect(file.afterEach()).resolves.toBeUndefined();
    expect(warn).not.toHaveBeenCalled();
    expect((await file.sendmock.journal.list()).total).toBe(0);
  });
});

const strictFiles = path.join(ROOT, "test/support/strict-contract");

describe('onContractViolation: "error" in the test runners themselves', () => {
  it("vitest fails the test that broke the contract with the violation in its failure and the test whose expectation went stale, and passes the others", async () => {
    const { code, output } = await runVitest(path.join(strictFiles, "vitest.config.ts"));
    expect(code).toBe(1);
    expect(output).toMatch(/✓ .*sends a valid request/);
    expect(output).toMatch(/× .*sends a number as the recipient/);
    expect(output).toMatch(/FAIL .*> sends a number as the recipient\nError: sendmock: 1 request in this test broke the contract \(openapi\/send\.yaml\):\n/);
    expect(output).toContain("POST /send -> 400 invalid_request");
    expect(output).toContain("/to: to must be a string");
    expect(output).toMatch(/✓ .*expects the mistyped address it sends/);
    expect(output).toMatch(
      /FAIL .*> expects a violation it never sends\nError: sendmock: expectViolation\(\{"path":"\/to"\}\) in this test matched no request's violation/,
    );
    expect(output).toMatch(/Tests\s+2 failed \| 2 passed/);
  }, 60_000);

  it("jest fails the test that broke the contract with the violation in its failure and the test whose expectation went stale, and passes the others", async () => {
    const { code, output } = await runJest(strictFiles, "**/*.jest.mjs");
    expect(code).toBe(1);
    expect(output).toMatch(/✓ sends a valid request/);
    expect(output).toMatch(/✕ sends a number as the recipient/);
    expect(output).toMatch(/● sends a number as the recipient\n\n\s+sendmock: 1 request in this test broke the contract \(openapi\/send\.yaml\):\n/);
    expect(output).toContain("/to: to must be a string");
    expect(output).toMatch(/✓ expects the mistyped address it sends/);
    expect(output).toMatch(
      /● expects a violation it never sends\n\n\s+sendmock: expectViolation\(\{"path":"\/to"\}\) in this test matched no request's violation/,
    );
    expect(output).toMatch(/Tests:\s+2 failed, 2 passed, 4 total/);
  }, 60_000);
});
