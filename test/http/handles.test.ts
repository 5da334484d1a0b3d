// The handles of a mock: exactly the members docs/library.md documents (no store operation among them),
// a read-only config, and each input refused as the /_mock call of the same operation refuses it, in its words.

import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import request from "supertest";
import { describe, expect, it } from "vitest";
import { ApiError, type SendMock } from "../../src/index.js";
import { setupSendMock } from "../../src/testing.js";
import { aRunningMockForThisTest, sharedMock } from "../support/helpers.js";

const HANDLES = ["outbox", "journal", "faults", "outcomes", "clock", "webhooks", "settings", "templates"] as const;

/** Each documented member by its handle (`mock` for the mock's own), from the tables of "What each handle does". */
async function documentedMembers(): Promise<Map<string, string[]>> {
  const page = await readFile(fileURLToPath(new URL("../../docs/library.md", import.meta.url)), "utf8");
  const section = page.slice(page.indexOf("## What each handle does"), page.indexOf("## Stopping a server started through npm"));
  const members = new Map<string, string[]>();
  for (const row of section.matchAll(/^\| (.+?) \|/gm)) {
    for (const [, handle = "mock", member = ""] of (row[1] ?? "").matchAll(/`(?:(\w+)\.)?(\w+)[^`]*`/g)) {
      members.set(handle, [...(members.get(handle) ?? []), member]);
    }
  }
  return members;
}

const sorted = (names: Iterable<string>): string[] => [...names].sort();

describe("the handles of a mock", () => {
  it("have exactly the members docs/library.md lists for each, so that a new one fails here until it is documented", async () => {
    const mock = await aRunningMockForThisTest();
    const documented = await documentedMembers();

    expect(sorted(documented.keys())).toEqual(sorted(["mock", ...HANDLES]));
    for (const handle of HANDLES) expect([handle, sorted(Object.keys(mock[handle]))]).toEqual([handle, sorted(documented.get(handle) ?? [])]);
    expect(sorted(Object.keys(mock))).toEqual(sorted([...(documented.get("mock") ?? []), ...HANDLES]));
  });

  it("are the same on setupSendMock's handle, less close(), with expectViolation", () => {
    const noHook = (): undefined => undefined;
    const handle = setupSendMock({}, { beforeAll: noHook, afterEach: noHook, afterAll: noHook });
    expect(sorted(Object.keys(handle))).toEqual(sorted(["url", "port", "app", "config", "reset", "expectViolation", ...HANDLES]));
  });

  it("hand out no store operation: the objects have no such property", async () => {
    const mock = await aRunningMockForThisTest();
    for (const storeOnly of ["add", "recordEvent", "listSerialized"]) expect(storeOnly in mock.outbox).toBe(false);
    expect("record" in mock.journal).toBe(false);
    expect("startWatching" in mock.templates).toBe(false);
    expect("reset" in mock.faults).toBe(false);
  });

  it("give the config as a frozen copy without functions: the log callbacks stay inside", async () => {
    const lines: string[] = [];
    const mock = await aRunningMockForThisTest({ log: (line) => lines.push(line), capacity: 7 });
    const values = (value: unknown): unknown[] => (typeof value === "object" && value !== null ? [value, ...Object.values(value).flatMap(values)] : [value]);

    expect(mock.config.capacity).toBe(7);
    expect(values(mock.config).filter((value) => typeof value === "function")).toEqual([]);
    expect(values(mock.config).filter((value) => typeof value === "object" && value !== null && !Object.isFrozen(value))).toEqual([]);
    expect(() => {
      (mock.config as { capacity: number }).capacity = 1;
    }).toThrow(TypeError);
  });
});

/** What a library call rejected with: its code and message. */
async function refusalOf(call: () => Promise<unknown>): Promise<{ code: string; message: string }> {
  const refusal: unknown = await call().then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(refusal).toBeInstanceOf(ApiError);
  const { code, message } = refusal as ApiError;
  return { code, message };
}

/** What the /_mock call responded: its status, code and message. */
async function errorResponseOf(call: request.Test): Promise<{ status: number; code: string; message: string }> {
  const response = await call;
  const { code, message } = (response.body as { error: { code: string; message: string } }).error;
  return { status: response.status, code, message };
}

describe("a library call refuses what its /_mock call refuses, in the same words", () => {
  const theMock = sharedMock();
  const refused = (message: string) => ({ code: "invalid_request", message });

  it.each<[string, (mock: SendMock) => Promise<unknown>, ((mock: SendMock) => request.Test) | undefined, string, string]>([
    [
      "a negative limit",
      (mock) => mock.outbox.list({ limit: -1 }),
      (mock) => request(mock.app).get("/_mock/messages?limit=-1"),
      "limit must be at least 1",
      "query.limit must be at least 1",
    ],
    [
      "a status no message has",
      (mock) => mock.outbox.list({ status: "lost" as never }),
      (mock) => request(mock.app).get("/_mock/messages?status=lost"),
      "status must be one of queued, sent, deferred, delivered, bounced, complained, opened, clicked",
      "query.status must be one of queued, sent, deferred, delivered, bounced, complained, opened, clicked",
    ],
    [
      "a since that is no date",
      (mock) => mock.outbox.waitFor({ since: "yesterday" }, { timeoutMs: 10 }),
      (mock) => request(mock.app).get("/_mock/messages?since=yesterday"),
      "since must be a date and time such as 2026-11-22T09:26:00Z (RFC 3339)",
      "query.since must be a date and time such as 2026-11-22T09:26:00Z (RFC 3339)",
    ],
    [
      "a wait past a minute",
      (mock) => mock.outbox.waitFor({}, { timeoutMs: 70_000 }),
      (mock) => request(mock.app).get("/_mock/messages?wait_ms=70000"),
      "timeoutMs must be at most 60000",
      "query.wait_ms must be at most 60000",
    ],
    [
      "a filter with a field it does not take",
      (mock) => mock.outbox.list({ template_id: "welcome" } as never),
      (mock) => request(mock.app).get("/_mock/messages?templateId=welcome"),
      "template_id is not a known field (did you mean templateId?)",
      "query.templateId Unknown query parameter 'templateId'",
    ],
    // No HTTP client can send an empty path segment: the contract's minLength is the check.
    ["an empty message id", (mock) => mock.outbox.get(""), undefined, "id must not be empty", ""],
    [
      "a journal page of no entry",
      (mock) => mock.journal.list({ limit: 0 }),
      (mock) => request(mock.app).get("/_mock/requests?limit=0"),
      "limit must be at least 1",
      "query.limit must be at least 1",
    ],
    [
      "deliveries of an empty message id",
      (mock) => mock.webhooks.deliveries({ messageId: "" }),
      (mock) => request(mock.app).get("/_mock/webhooks/deliveries?message_id="),
      "messageId must not be empty",
      "query.message_id Empty value found for query parameter 'message_id'",
    ],
    [
      "a clock advance that is not a number",
      (mock) => mock.clock.advance("soon" as never),
      (mock) => request(mock.app).post("/_mock/clock").send({ advance_ms: "soon" }),
      "advance_ms must be a whole number",
      "advance_ms must be a whole number",
    ],
    [
      "a webhook without a URL",
      (mock) => mock.webhooks.add({ events: [] } as never),
      (mock) => request(mock.app).post("/_mock/webhooks").send({ events: [] }),
      "url is required; events must not have fewer than 1 items",
      "url is required; events must not have fewer than 1 items",
    ],
    [
      "a fault rule used up before it starts",
      (mock) => mock.faults.add({ fault: "server_error", times: 0 }),
      (mock) => request(mock.app).post("/_mock/faults").send({ fault: "server_error", times: 0 }),
      "times must be at least 1",
      "times must be at least 1",
    ],
    [
      "an outcome that does not exist",
      (mock) => mock.outcomes.add({ outcome: "lost" } as never),
      (mock) => request(mock.app).post("/_mock/outcomes").send({ outcome: "lost" }),
      "outcome must be one of delivered, bounced, soft_bounced, deferred, complained, opened, clicked",
      "outcome must be one of delivered, bounced, soft_bounced, deferred, complained, opened, clicked",
    ],
  ])("%s", async (_case, libraryCall, routeCall, words, routeWords) => {
    const mock = theMock();

    expect(await refusalOf(() => libraryCall(mock))).toEqual(refused(`Invalid request: ${words}`));
    if (routeCall) expect(await errorResponseOf(routeCall(mock))).toEqual({ status: 400, ...refused(`Invalid request: ${routeWords}`) });
  });

  it("refuses a webhook URL that is not http or https with the words of POST /_mock/webhooks, and keeps nothing", async () => {
    const mock = theMock();
    const words = 'Invalid webhook: url must be an http or https URL, got "ftp://hooks.example.com/"';

    expect(await refusalOf(() => mock.webhooks.add({ url: "ftp://hooks.example.com/" }))).toEqual(refused(words));
    expect(await errorResponseOf(request(mock.app).post("/_mock/webhooks").send({ url: "ftp://hooks.example.com/" }))).toEqual({
      status: 400,
      ...refused(words),
    });
    expect(await mock.webhooks.list()).toEqual([]);
  });

  it("takes what the /_mock call takes: a filter's Date, a wait within a minute, a rule as on the wire", async () => {
    const mock = theMock();

    expect(await mock.outbox.list({ since: new Date(0), limit: 10_000, templateId: "welcome" })).toEqual({ messages: [], total: 0 });
    expect((await mock.faults.add({ fault: "latency", delay_ms: 5, times: 1 })).times).toBe(1);
    expect(await mock.clock.advance(0)).toBeInstanceOf(Date);
  });
});
