// Fault injection end to end: every fault kind through every way in, how the rules match and
// count, which trigger wins, the switches, bad fault input, managing the rules, and where the
// faults sit in the pipeline of POST /send.

import type { EventEmitter } from "node:events";
import { setTimeout as sleep } from "node:timers/promises";
import request, { type Response } from "supertest";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  ApiError,
  ConfigError,
  type ErrorCode,
  type FaultRule,
  type FaultRuleInput,
  type JournalEntry,
  type ResponseShape,
  type RunningSendMock,
  type SendMock,
  type SendRequest,
} from "../../src/index.js";
import { aMock, aMockForThisTest, aRunningMock, aSendRequest, bearer, errorCodeOf, expectContract, sharedMockBuiltBy } from "../support/helpers.js";

const INJECTED = "(fault injected by sendmock)";
const SHAPES: readonly ResponseShape[] = ["a", "b"];
/** Timers may fire a little early against `performance.now()`; delays are checked with this much slack. */
const TIMER_SLACK_MS = 10;

// ---------------------------------------------------------------------------------------------
// Mocks. Building one reads both contracts and the templates (about half a second), so a group
// of tests shares one mock, reset before each test; a test that needs other options builds its
// own, closed after it.
// ---------------------------------------------------------------------------------------------

const closeAfterTest: SendMock[] = [];

afterEach(async () => {
  await Promise.all(closeAfterTest.splice(0).map((mock) => mock.close()));
});

// ---------------------------------------------------------------------------------------------
// Sending, and reading what the mock did.
// ---------------------------------------------------------------------------------------------

/** A send as a client makes it: a valid send of `welcome` with a valid key, changed by these. */
interface SendCall {
  with?: Partial<SendRequest>;
  headers?: Record<string, string>;
}

/** POST /send; the response is checked against the contract. */
async function send(mock: SendMock, call: SendCall = {}): Promise<Response> {
  const response = await request(mock.app)
    .post("/send")
    .set({ ...bearer(), ...call.headers })
    .send(aSendRequest(call.with));
  await expectContract(response);
  return response;
}

/** Collects a body as text, whatever its Content-Type says. */
function readText(res: EventEmitter & { setEncoding(encoding: BufferEncoding): unknown }, done: (error: Error | null, body: string) => void): void {
  let text = "";
  res.setEncoding("utf8");
  res.on("data", (chunk: string) => (text += chunk));
  res.on("end", () => done(null, text));
}

/** POST /send, reading the body as text: for a response that claims to be JSON and is not. */
async function sendForText(mock: SendMock, call: SendCall = {}): Promise<{ status: number; text: string }> {
  const response = await request(mock.app)
    .post("/send")
    .set({ ...bearer(), ...call.headers })
    .send(aSendRequest(call.with))
    .buffer(true)
    .parse(readText);
  return { status: response.status, text: response.body as string };
}

interface SocketOutcome {
  /** The status, had a response come. */
  status?: number;
  /** Why fetch failed, if it did. */
  error?: unknown;
  elapsedMs: number;
}

/** POST /send with fetch over a real socket: the way to see a held or closed connection. */
async function sendOverSocket(mock: RunningSendMock, call: SendCall = {}, signal?: AbortSignal): Promise<SocketOutcome> {
  const started = performance.now();
  const outcome = await fetch(`${mock.url}/send`, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...bearer(), ...call.headers },
    body: JSON.stringify(aSendRequest(call.with)),
    signal: signal ?? null,
  }).then(
    (response) => ({ status: response.status }),
    (error: unknown) => ({ error }),
  );
  return { ...outcome, elapsedMs: performance.now() - started };
}

/** The connection was closed by the mock without any response (not aborted by the client). */
function expectClosedWithoutResponse(outcome: SocketOutcome): void {
  expect(outcome.status, "no answer came").toBeUndefined();
  expect(outcome.error).toBeInstanceOf(TypeError);
  expect(String((outcome.error as Error).cause), "the server closed the connection").toMatch(/closed|reset|socket/i);
}

async function timed<T>(work: () => Promise<T>): Promise<[T, number]> {
  const started = performance.now();
  const result = await work();
  return [result, performance.now() - started];
}

/** The human-readable message of an error response, in either shape. */
function errorMessageOf(response: Response): string {
  const body = response.body as { error?: { message?: unknown }; message?: unknown };
  const message = body.error?.message ?? body.message;
  expect(message, "an error answer carries a message").toBeTypeOf("string");
  return String(message);
}

/** Status, `X-Sendmock-Error-Code` and the exact envelope of `shape`; returns the message. */
function expectError(response: Response, expected: { status: number; code: ErrorCode }, shape: ResponseShape = "a"): string {
  expect(response.status).toBe(expected.status);
  expect(errorCodeOf(response)).toBe(expected.code);
  const message = errorMessageOf(response);
  expect(response.body).toEqual(shape === "a" ? { success: false, error: { code: expected.code, message } } : { status: "error", message });
  return message;
}

function statusesOf(responses: readonly Response[]): number[] {
  return responses.map((response) => response.status);
}

async function capturedCount(mock: SendMock): Promise<number> {
  return (await mock.outbox.list()).total;
}

async function lastJournalEntry(mock: SendMock): Promise<JournalEntry | undefined> {
  return (await mock.journal.list({ limit: 1 })).requests[0];
}

/** The journal records a request when its connection closes, which the client may see first. */
async function expectJournaled(mock: SendMock, expected: Partial<JournalEntry>): Promise<void> {
  await expect.poll(() => lastJournalEntry(mock)).toMatchObject(expected);
}

// ---------------------------------------------------------------------------------------------
// The admin API for rules, each response checked against openapi/admin.yaml.
// ---------------------------------------------------------------------------------------------

async function postFault(mock: SendMock, rule: unknown): Promise<Response> {
  const response = await request(mock.app)
    .post("/_mock/faults")
    .send(rule as object);
  await expectContract(response, { contract: "admin", method: "post", path: "/_mock/faults" });
  return response;
}

/** Adds a rule through `POST /_mock/faults`, as a client of the admin API would. */
async function addFault(mock: SendMock, rule: FaultRuleInput): Promise<FaultRule> {
  const response = await postFault(mock, rule);
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body as FaultRule;
}

async function getFaults(mock: SendMock): Promise<Response> {
  const response = await request(mock.app).get("/_mock/faults");
  await expectContract(response, { contract: "admin", method: "get", path: "/_mock/faults" });
  expect(response.status).toBe(200);
  return response;
}

async function listFaults(mock: SendMock): Promise<FaultRule[]> {
  return ((await getFaults(mock)).body as { faults: FaultRule[] }).faults;
}

async function deleteFault(mock: SendMock, id: string): Promise<Response> {
  const response = await request(mock.app).delete(`/_mock/faults/${encodeURIComponent(id)}`);
  await expectContract(response, { contract: "admin", method: "delete", path: "/_mock/faults/{id}" });
  return response;
}

async function resetOverHttp(mock: SendMock): Promise<void> {
  const response = await request(mock.app).post("/_mock/reset");
  await expectContract(response, { contract: "admin", method: "post", path: "/_mock/reset" });
  expect(response.status).toBe(204);
}

// ---------------------------------------------------------------------------------------------
// The five ways in. A fault is described once (`FaultSpec`) and each way turns it into what a
// user does: post a rule, add it from a test, start with it in the config, send the header, or
// send to a magic recipient.
// ---------------------------------------------------------------------------------------------

type FaultSpec = Pick<FaultRuleInput, "fault" | "status" | "retry_after_s" | "delay_ms">;

/** The parameters a spec sets, in the order of a magic recipient's + parts: `server_error+503+30`. */
function parametersOf(spec: FaultSpec): number[] {
  return [spec.status, spec.retry_after_s, spec.delay_ms].filter((value) => value !== undefined);
}

function labelOf(spec: FaultSpec): string {
  const parameters = Object.entries(spec).filter(([key]) => key !== "fault");
  return parameters.length === 0 ? spec.fault : `${spec.fault} with ${parameters.map(([name, value]) => `${name} ${String(value)}`).join(" and ")}`;
}

function magicRecipient(spec: FaultSpec): string {
  return `${[spec.fault, ...parametersOf(spec)].join("+")}@fault.sendmock.test`;
}

function faultHeaders(spec: FaultSpec): Record<string, string> {
  return {
    "X-Sendmock-Fault": spec.fault,
    ...(spec.status !== undefined && { "X-Sendmock-Fault-Status": String(spec.status) }),
    ...(spec.delay_ms !== undefined && { "X-Sendmock-Fault-Delay": String(spec.delay_ms) }),
    ...(spec.retry_after_s !== undefined && { "X-Sendmock-Fault-Retry-After": String(spec.retry_after_s) }),
  };
}

/** The recipient that the config rule of `spec` matches: one rule per spec in a mock's start-up faults. */
function configRecipient(spec: FaultSpec): string {
  return `config-${[spec.fault, ...parametersOf(spec)].join("-")}@example.com`;
}

function configRules(specs: readonly FaultSpec[]): FaultRuleInput[] {
  return specs.map((spec) => ({ ...spec, match: { to: configRecipient(spec) } }));
}

interface WayIn {
  way: string;
  /** Whether this way can say all that `spec` says (a magic recipient gives a server_error's Retry-After only after its status). */
  carries: (spec: FaultSpec) => boolean;
  /** Sets the fault up on `mock` and returns the send that meets it. */
  arm: (mock: SendMock, spec: FaultSpec) => Promise<SendCall>;
}

const WAYS_IN: readonly WayIn[] = [
  {
    way: "a rule posted to /_mock/faults",
    carries: () => true,
    arm: async (mock, spec) => {
      await addFault(mock, spec);
      return {};
    },
  },
  {
    way: "mock.faults.add",
    carries: () => true,
    arm: async (mock, spec) => {
      await mock.faults.add(spec);
      return {};
    },
  },
  {
    way: "a rule of the faults option",
    carries: () => true,
    arm: (_mock, spec) => Promise.resolve({ with: { to: configRecipient(spec) } }),
  },
  {
    way: "the X-Sendmock-Fault header",
    carries: () => true,
    arm: (_mock, spec) => Promise.resolve({ headers: faultHeaders(spec) }),
  },
  {
    way: "a magic recipient",
    carries: (spec) => !(spec.fault === "server_error" && spec.retry_after_s !== undefined && spec.status === undefined),
    arm: (_mock, spec) => Promise.resolve({ with: { to: magicRecipient(spec) } }),
  },
];

/** Each fault crossed with each way in that can express it, as rows for `it.each`. */
function throughEachWayIn<T extends { spec: FaultSpec }>(faults: readonly T[], ways: readonly WayIn[] = WAYS_IN) {
  return faults.flatMap((fault) => ways.filter((way) => way.carries(fault.spec)).map((way) => ({ ...fault, ...way, label: labelOf(fault.spec) })));
}

interface ErrorFault {
  spec: FaultSpec;
  status: number;
  code: ErrorCode;
  /** What the message says, as the real condition would. */
  says: RegExp;
  retryAfter?: string;
}

const ERROR_FAULTS: readonly ErrorFault[] = [
  { spec: { fault: "invalid_recipient" }, status: 422, code: "invalid_recipient", says: /invalid recipient/i },
  { spec: { fault: "invalid_template_id" }, status: 422, code: "invalid_template_id", says: /invalid template id.*welcome/i },
  { spec: { fault: "missing_template_data" }, status: 422, code: "missing_template_data", says: /missing template data.*welcome/i },
  { spec: { fault: "rate_limit" }, status: 429, code: "rate_limited", says: /rate limit/i, retryAfter: "1" },
  { spec: { fault: "rate_limit", retry_after_s: 7 }, status: 429, code: "rate_limited", says: /retry after 7 s/i, retryAfter: "7" },
  { spec: { fault: "rate_limit", retry_after_s: 0 }, status: 429, code: "rate_limited", says: /retry after 0 s/i, retryAfter: "0" },
  { spec: { fault: "server_error" }, status: 500, code: "server_error", says: /^Internal server error/ },
  { spec: { fault: "server_error", status: 502 }, status: 502, code: "server_error", says: /^Bad gateway/ },
  { spec: { fault: "server_error", status: 503 }, status: 503, code: "server_error", says: /^Service unavailable/ },
  { spec: { fault: "server_error", status: 504 }, status: 504, code: "server_error", says: /^Gateway timeout/ },
  {
    spec: { fault: "server_error", status: 503, retry_after_s: 30 },
    status: 503,
    code: "server_error",
    says: /^Service unavailable: retry after 30 s/,
    retryAfter: "30",
  },
  { spec: { fault: "server_error", retry_after_s: 5 }, status: 500, code: "server_error", says: /^Internal server error: retry after 5 s/, retryAfter: "5" },
];

const LATENCY: FaultSpec = { fault: "latency", delay_ms: 150 };
const TIMEOUT: FaultSpec = { fault: "timeout", delay_ms: 250 };
const DISCONNECT: FaultSpec = { fault: "disconnect" };
const MALFORMED: FaultSpec = { fault: "malformed_response" };

/** The start-up rules of the mocks that try every way in. */
const START_UP_RULES = configRules([...ERROR_FAULTS.map((fault) => fault.spec), LATENCY, TIMEOUT, DISCONNECT, MALFORMED]);

// ---------------------------------------------------------------------------------------------

describe.each(SHAPES)("an error fault, in response shape %s", (shape) => {
  const theMock = sharedMockBuiltBy(() => aMock({ responseShape: shape, faults: START_UP_RULES }));

  it.each(throughEachWayIn(ERROR_FAULTS))(
    "$label through $way answers $status $code in the contract, captures nothing and journals the fault",
    async ({ spec, arm, status, code, says, retryAfter }) => {
      const mock = theMock();
      const call = await arm(mock, spec);

      const response = await send(mock, call);

      const message = expectError(response, { status, code }, shape);
      expect(message).toMatch(says);
      expect(message.endsWith(INJECTED), message).toBe(true);
      expect(response.headers["retry-after"]).toBe(retryAfter);
      expect(await capturedCount(mock)).toBe(0);
      expect(await lastJournalEntry(mock)).toMatchObject({ status, error_code: code, fault: spec.fault, message_id: null });
    },
  );

  it("names the recipient in an injected invalid_recipient, as the real error does", async () => {
    const mock = theMock();
    await mock.faults.add({ fault: "invalid_recipient" });

    const response = await send(mock, { with: { to: "grace@example.com" } });

    expect(expectError(response, { status: 422, code: "invalid_recipient" }, shape)).toContain("grace@example.com");
  });
});

describe("latency, malformed_response, timeout and disconnect", () => {
  const theMock = sharedMockBuiltBy(() => aRunningMock({ faults: START_UP_RULES }));

  it.each(throughEachWayIn([{ spec: LATENCY }]))("$label through $way waits 150 ms, then answers 200 and captures the message", async ({ spec, arm }) => {
    const mock = theMock();
    const call = await arm(mock, spec);

    const [response, elapsedMs] = await timed(() => send(mock, call));

    expect(response.status).toBe(200);
    expect(elapsedMs).toBeGreaterThanOrEqual(150 - TIMER_SLACK_MS);
    const { messages } = await mock.outbox.list();
    expect(messages).toHaveLength(1);
    const entry = await lastJournalEntry(mock);
    expect(entry).toMatchObject({ status: 200, fault: "latency", error_code: null, message_id: messages[0]?.id });
    expect(entry?.duration_ms).toBeGreaterThanOrEqual(150 - TIMER_SLACK_MS);
  });

  it("waits 1000 ms by default for a latency without a delay", async () => {
    const mock = theMock();

    const [response, elapsedMs] = await timed(() => send(mock, { headers: { "X-Sendmock-Fault": "latency" } }));

    expect(response.status).toBe(200);
    expect(elapsedMs).toBeGreaterThanOrEqual(1000 - TIMER_SLACK_MS);
  });

  it.each(throughEachWayIn([{ spec: MALFORMED }]))(
    "$label through $way answers 200 with a body no JSON parser accepts, and captures nothing",
    async ({ spec, arm }) => {
      const mock = theMock();
      const call = await arm(mock, spec);

      const response = await sendForText(mock, call);

      expect(response.status).toBe(200);
      expect(response.text).not.toBe("");
      expect(() => JSON.parse(response.text) as unknown).toThrow(SyntaxError);
      expect(await capturedCount(mock)).toBe(0);
      expect(await lastJournalEntry(mock)).toMatchObject({ status: 200, fault: "malformed_response", message_id: null });
    },
  );

  it.each(throughEachWayIn([{ spec: TIMEOUT }]))("$label through $way gives no answer for 250 ms, then closes the connection", async ({ spec, arm }) => {
    const mock = theMock();
    const call = await arm(mock, spec);

    const outcome = await sendOverSocket(mock, call);

    expectClosedWithoutResponse(outcome);
    expect(outcome.elapsedMs).toBeGreaterThanOrEqual(250 - TIMER_SLACK_MS);
    expect(outcome.elapsedMs).toBeLessThan(250 + 2000);
    await expectJournaled(mock, { status: 0, fault: "timeout", message_id: null });
    expect(await capturedCount(mock)).toBe(0);
  });

  it.each(throughEachWayIn([{ spec: DISCONNECT }]))("$label through $way closes the connection at once, without an answer", async ({ spec, arm }) => {
    const mock = theMock();
    const call = await arm(mock, spec);

    const outcome = await sendOverSocket(mock, call);

    expectClosedWithoutResponse(outcome);
    expect(outcome.elapsedMs).toBeLessThan(1000);
    await expectJournaled(mock, { status: 0, fault: "disconnect", message_id: null });
    expect(await capturedCount(mock)).toBe(0);
  });
});

describe("a timeout without a delay", () => {
  it("holds the connection far longer than a client waits (30000 ms by default), and lets it go when the mock closes", async () => {
    const mock = await aRunningMock();
    closeAfterTest.push(mock);
    const pending = sendOverSocket(mock, { headers: { "X-Sendmock-Fault": "timeout" } });

    const first = await Promise.race([pending.then(() => "settled"), sleep(400).then(() => "still waiting")]);
    expect(first).toBe("still waiting");

    const [, closeMs] = await timed(() => mock.close());
    const outcome = await pending;
    expectClosedWithoutResponse(outcome);
    expect(outcome.elapsedMs).toBeLessThan(400 + 2000);
    expect(closeMs).toBeLessThan(1000);
  });
});

// ---------------------------------------------------------------------------------------------

describe("the rules", () => {
  const theMock = sharedMockBuiltBy(() => aMock());

  it("are tried in the order they were added: the first that matches applies", async () => {
    const mock = theMock();
    await addFault(mock, { fault: "server_error", status: 503, match: { to: "*@example.org" } });
    await addFault(mock, { fault: "rate_limit" });
    await addFault(mock, { fault: "server_error", status: 502 });

    expect((await send(mock, { with: { to: "ada@example.org" } })).status).toBe(503);
    expect((await send(mock, { with: { to: "ada@example.com" } })).status).toBe(429);
  });

  it("match `to` as a case-insensitive glob such as *@example.com", async () => {
    const mock = theMock();
    await addFault(mock, { fault: "server_error", match: { to: "*@example.com" } });

    expect((await send(mock, { with: { to: "ADA@Example.COM" } })).status).toBe(500);
    expect((await send(mock, { with: { to: "ada@example.org" } })).status).toBe(200);
  });

  it("match only `*` and `?` as wildcards: a hostile extglob is literal text and the send is answered at once", async () => {
    const mock = theMock();
    await addFault(mock, { fault: "server_error", match: { to: "+(*a)b" } });
    await addFault(mock, { fault: "rate_limit", match: { to: "a?a+x@*.com" } });

    expect((await send(mock, { with: { to: `${"a".repeat(28)}@example.com` } })).status).toBe(200);
    expect((await send(mock, { with: { to: "aXa+x@example.com" } })).status).toBe(429);
  });

  it("are at most max_rules: one more answers 400 invalid_request, and removing one makes room", async () => {
    const mock = await aMockForThisTest({ maxRules: 3, faults: [{ fault: "latency", delay_ms: 0 }] });
    await addFault(mock, { fault: "server_error", match: { to: "a@example.com" } });
    const last = await addFault(mock, { fault: "server_error", match: { to: "b@example.com" } });

    expect(expectError(await postFault(mock, { fault: "rate_limit" }), { status: 400, code: "invalid_request" })).toMatch(/at most 3 \(max_rules\)/);
    await request(mock.app).delete(`/_mock/faults/${last.id}`).expect(204);
    expect((await postFault(mock, { fault: "rate_limit" })).status).toBe(201);
  });

  it("match `template_id` as a glob such as password-*", async () => {
    const mock = theMock();
    await addFault(mock, { fault: "server_error", match: { template_id: "password-*" } });
    const passwordReset = {
      template_id: "password-reset",
      data: { name: "Ada", company: "Acme", token: "t-1", expires_in: "30 minutes" },
    };

    expect((await send(mock, { with: passwordReset })).status).toBe(500);
    expect((await send(mock, { with: { template_id: "welcome" } })).status).toBe(200);
  });

  it("match `api_key` exactly, and show only its last 4 characters as api_key_hint, never the key", async () => {
    const mock = theMock();
    const key = "sk_test_faulty_key_9f3c";

    const added = await addFault(mock, { fault: "server_error", match: { api_key: key } });

    expect(added.api_key_hint).toBe("9f3c");
    expect(JSON.stringify(added)).not.toContain(key);
    expect((await getFaults(mock)).text).not.toContain(key);
    expect(JSON.stringify(await mock.faults.list())).not.toContain(key);
    expect((await send(mock, { headers: bearer(key) })).status).toBe(500);
    expect((await send(mock, { headers: bearer("sk_test_faulty_key_9f3") })).status).toBe(200);
    expect((await send(mock, { headers: bearer("sk_test_other_key_9f3c") })).status).toBe(200);
  });

  it("apply a rule with times: 2 exactly twice, counting down in the list, then remove it", async () => {
    const mock = theMock();
    const rule = await addFault(mock, { fault: "server_error", times: 2 });

    expect((await send(mock)).status).toBe(500);
    expect(await listFaults(mock)).toEqual([{ ...rule, times: 1 }]);
    expect((await send(mock)).status).toBe(500);
    expect(await listFaults(mock)).toEqual([]);
    expect((await send(mock)).status).toBe(200);
  });

  it("count times exactly under concurrency: 20 concurrent sends against times: 5 fault exactly 5", async () => {
    const mock = theMock();
    await addFault(mock, { fault: "server_error", times: 5 });

    const responses = await Promise.all(Array.from({ length: 20 }, () => send(mock)));

    const statuses = statusesOf(responses);
    expect(statuses.filter((status) => status === 500)).toHaveLength(5);
    expect(statuses.filter((status) => status === 200)).toHaveLength(15);
    expect(await capturedCount(mock)).toBe(15);
    expect(await listFaults(mock)).toEqual([]);
  });

  it("never apply a rule with probability 0, nor count its times down", async () => {
    const mock = theMock();
    const rule = await addFault(mock, { fault: "server_error", probability: 0, times: 3 });

    const responses: Response[] = [];
    for (let i = 0; i < 20; i += 1) responses.push(await send(mock));

    expect(new Set(statusesOf(responses))).toEqual(new Set([200]));
    expect(await listFaults(mock)).toEqual([rule]);
  });

  it("compose latency: a latency rule and then a server_error rule answer the server_error after the delay", async () => {
    const mock = theMock();
    await addFault(mock, { fault: "latency", delay_ms: 150 });
    await addFault(mock, { fault: "server_error", status: 503 });

    const [response, elapsedMs] = await timed(() => send(mock));

    expectError(response, { status: 503, code: "server_error" });
    expect(elapsedMs).toBeGreaterThanOrEqual(150 - TIMER_SLACK_MS);
    expect(await capturedCount(mock)).toBe(0);
    expect(await lastJournalEntry(mock)).toMatchObject({ status: 503, fault: "server_error" });
  });

  it("add up the delays of every latency rule that matches", async () => {
    const mock = theMock();
    await addFault(mock, { fault: "latency", delay_ms: 100 });
    await addFault(mock, { fault: "latency", delay_ms: 100 });

    const [response, elapsedMs] = await timed(() => send(mock));

    expect(response.status).toBe(200);
    expect(elapsedMs).toBeGreaterThanOrEqual(200 - TIMER_SLACK_MS);
    expect(await capturedCount(mock)).toBe(1);
  });
});

describe("probability and seed", () => {
  const HALF_THE_TIME: FaultRuleInput = { fault: "server_error", probability: 0.5 };

  /** The statuses of `count` sends made one after the other. */
  async function statusesOfSends(mock: SendMock, count = 40): Promise<number[]> {
    const statuses: number[] = [];
    for (let i = 0; i < count; i += 1) statuses.push((await send(mock)).status);
    return statuses;
  }

  it("gives the same outcomes for the same sends with the same seed", async () => {
    const first = await aMockForThisTest({ seed: 42 });
    const second = await aMockForThisTest({ seed: 42 });
    await addFault(first, HALF_THE_TIME);
    await addFault(second, HALF_THE_TIME);

    const firstStatuses = await statusesOfSends(first);
    const secondStatuses = await statusesOfSends(second);

    expect(secondStatuses).toEqual(firstStatuses);
    expect(new Set(firstStatuses)).toEqual(new Set([200, 500]));
  });

  it("gives another sequence with another seed", async () => {
    const first = await aMockForThisTest({ seed: 42 });
    const second = await aMockForThisTest({ seed: 7 });
    await addFault(first, HALF_THE_TIME);
    await addFault(second, HALF_THE_TIME);

    expect(await statusesOfSends(second)).not.toEqual(await statusesOfSends(first));
  });

  it("replays the same sequence after a reset, from a freshly seeded generator", async () => {
    const mock = await aMockForThisTest({ seed: 42, faults: [HALF_THE_TIME] });

    const before = await statusesOfSends(mock, 20);
    await resetOverHttp(mock);
    const after = await statusesOfSends(mock, 20);

    expect(after).toEqual(before);
    expect(new Set(before)).toEqual(new Set([200, 500]));
  });
});

describe("which trigger wins: the header, then a magic recipient, then the rules", () => {
  const theMock = sharedMockBuiltBy(() => aMock());

  it("takes the header before a magic recipient", async () => {
    const mock = theMock();

    const response = await send(mock, {
      headers: faultHeaders({ fault: "server_error", status: 503 }),
      with: { to: magicRecipient({ fault: "rate_limit" }) },
    });

    expectError(response, { status: 503, code: "server_error" });
    expect(await lastJournalEntry(mock)).toMatchObject({ fault: "server_error" });
  });

  it("takes the header before the rules", async () => {
    const mock = theMock();
    await addFault(mock, { fault: "rate_limit" });

    const response = await send(mock, { headers: faultHeaders({ fault: "server_error", status: 502 }) });

    expectError(response, { status: 502, code: "server_error" });
  });

  it("takes a magic recipient before the rules, and leaves the rules' times untouched", async () => {
    const mock = theMock();
    const rule = await addFault(mock, { fault: "rate_limit", times: 1 });

    const response = await send(mock, { with: { to: magicRecipient({ fault: "server_error", status: 504 }) } });

    expectError(response, { status: 504, code: "server_error" });
    expect(await listFaults(mock)).toEqual([rule]);
  });

  it("waits a header latency, then answers a rule's server_error", async () => {
    const mock = theMock();
    await addFault(mock, { fault: "server_error" });

    const [response, elapsedMs] = await timed(() => send(mock, { headers: faultHeaders({ fault: "latency", delay_ms: 150 }) }));

    expectError(response, { status: 500, code: "server_error" });
    expect(elapsedMs).toBeGreaterThanOrEqual(150 - TIMER_SLACK_MS);
  });
});

describe("with allowFaultHeader: false and allowMagicRecipients: false", () => {
  const theMock = sharedMockBuiltBy(() => aMock({ allowFaultHeader: false, allowMagicRecipients: false }));

  it("ignores the X-Sendmock-Fault header: the send is accepted and captured", async () => {
    const mock = theMock();

    const response = await send(mock, { headers: faultHeaders({ fault: "server_error", status: 503 }) });

    expect(response.status).toBe(200);
    expect(await capturedCount(mock)).toBe(1);
    expect(await lastJournalEntry(mock)).toMatchObject({ status: 200, fault: null });
  });

  it("ignores even a header that names no fault", async () => {
    const mock = theMock();

    const response = await send(mock, { headers: { "X-Sendmock-Fault": "explode", "X-Sendmock-Fault-Status": "abc" } });

    expect(response.status).toBe(200);
  });

  it("sends to a magic address like any other: accepted and captured", async () => {
    const mock = theMock();
    const to = magicRecipient({ fault: "server_error", status: 503 });

    const response = await send(mock, { with: { to } });

    expect(response.status).toBe(200);
    expect((await mock.outbox.get("latest"))?.to).toBe(to);
  });

  it("still applies the rules", async () => {
    const mock = theMock();
    await addFault(mock, { fault: "rate_limit", retry_after_s: 3 });

    const response = await send(mock);

    expectError(response, { status: 429, code: "rate_limited" });
    expect(response.headers["retry-after"]).toBe("3");
  });
});

// ---------------------------------------------------------------------------------------------

describe("bad fault input", () => {
  const theMock = sharedMockBuiltBy(() => aMock());

  it.each([
    { problem: "an unknown kind", rule: { fault: "explode" }, says: /fault.*(invalid_recipient|one of)/ },
    { problem: "no fault at all", rule: { times: 1 }, says: /fault.*required/ },
    { problem: "status: 418", rule: { fault: "server_error", status: 418 }, says: /status.*500, 502, 503, 504/ },
    { problem: "a status on rate_limit", rule: { fault: "rate_limit", status: 503 }, says: /status does not apply to the fault rate_limit/ },
    {
      problem: "delay_ms on invalid_recipient",
      rule: { fault: "invalid_recipient", delay_ms: 100 },
      says: /delay_ms does not apply to the fault invalid_recipient/,
    },
    { problem: "retry_after_s on latency", rule: { fault: "latency", retry_after_s: 2 }, says: /retry_after_s does not apply to the fault latency/ },
    { problem: "respond without a status", rule: { fault: "respond", body: "hi" }, says: /respond needs a status/ },
    { problem: "respond with status 100", rule: { fault: "respond", status: 100 }, says: /status of respond must be 200-599/ },
    { problem: "respond with status 600", rule: { fault: "respond", status: 600 }, says: /status/ },
    { problem: "respond with a status that is not an integer", rule: { fault: "respond", status: "429" }, says: /status/ },
    { problem: "respond with a null body", rule: { fault: "respond", status: 200, body: null }, says: /body must not be null/ },
    { problem: "respond with a body and status 204", rule: { fault: "respond", status: 204, body: "x" }, says: /body is not allowed with status 204/ },
    { problem: "respond with a header value that is not a string", rule: { fault: "respond", status: 200, headers: { "Retry-After": 5 } }, says: /headers/ },
    {
      problem: "respond with a line break in a header value",
      rule: { fault: "respond", status: 200, headers: { "X-Note": "a\r\nSet-Cookie: b=c" } },
      says: /headers\.X-Note must be printable ASCII on one line/,
    },
    { problem: "respond with Content-Length", rule: { fault: "respond", status: 200, headers: { "Content-Length": "3" } }, says: /headers\.Content-Length/ },
    { problem: "respond with Transfer-Encoding", rule: { fault: "respond", status: 200, headers: { "Transfer-Encoding": "chunked" } }, says: /hop-by-hop/ },
    {
      problem: "respond with a bad header name",
      rule: { fault: "respond", status: 200, headers: { "Bad Name": "x" } },
      says: /"Bad Name" is not a header name/,
    },
    { problem: "headers on server_error", rule: { fault: "server_error", headers: { "X-A": "b" } }, says: /headers does not apply to the fault server_error/ },
    { problem: "an unknown field", rule: { fault: "latency", colour: "red" }, says: /colour/ },
    { problem: "an unknown match field", rule: { fault: "latency", match: { from: "*@example.com" } }, says: /from/ },
    { problem: "probability: 2", rule: { fault: "server_error", probability: 2 }, says: /probability/ },
    { problem: "times: 0", rule: { fault: "server_error", times: 0 }, says: /times/ },
    { problem: "delay_ms over 600000", rule: { fault: "latency", delay_ms: 600_001 }, says: /delay_ms/ },
    { problem: "a glob over 1024 characters", rule: { fault: "server_error", match: { to: `${"a".repeat(1025)}*` } }, says: /1024/ },
    { problem: "a template glob of 70,000 characters", rule: { fault: "server_error", match: { template_id: "x".repeat(70_000) } }, says: /1024/ },
    { problem: "retry_after_s over a day", rule: { fault: "rate_limit", retry_after_s: 86_401 }, says: /retry_after_s/ },
  ])("POST /_mock/faults with $problem answers 400 invalid_request saying what is wrong, and adds nothing", async ({ rule, says }) => {
    const mock = theMock();

    const response = await postFault(mock, rule);

    expect(expectError(response, { status: 400, code: "invalid_request" })).toMatch(says);
    expect(await listFaults(mock)).toEqual([]);
  });

  it.each<{ problem: string; call: SendCall; says: RegExp; path: string | string[] }>([
    { problem: "X-Sendmock-Fault: explode", call: { headers: { "X-Sendmock-Fault": "explode" } }, says: /explode/, path: "/headers/x-sendmock-fault" },
    {
      problem: "X-Sendmock-Fault-Status: abc",
      call: { headers: { "X-Sendmock-Fault": "server_error", "X-Sendmock-Fault-Status": "abc" } },
      says: /X-Sendmock-Fault-Status.*whole number/,
      path: "/headers/x-sendmock-fault-status",
    },
    {
      problem: "X-Sendmock-Fault-Status: 418",
      call: { headers: { "X-Sendmock-Fault": "server_error", "X-Sendmock-Fault-Status": "418" } },
      says: /X-Sendmock-Fault-Status of server_error must be one of 500, 502, 503, 504/,
      path: "/headers/x-sendmock-fault-status",
    },
    {
      problem: "X-Sendmock-Fault-Delay on a rate_limit",
      call: { headers: { "X-Sendmock-Fault": "rate_limit", "X-Sendmock-Fault-Delay": "100" } },
      says: /X-Sendmock-Fault-Delay does not apply to the fault rate_limit \(it takes X-Sendmock-Fault-Retry-After\)/,
      path: "/headers/x-sendmock-fault-delay",
    },
    {
      problem: "X-Sendmock-Fault-Retry-After: -1",
      call: { headers: { "X-Sendmock-Fault": "rate_limit", "X-Sendmock-Fault-Retry-After": "-1" } },
      says: /X-Sendmock-Fault-Retry-After must be a whole number of seconds, 0 to 86400, got "-1"/,
      path: "/headers/x-sendmock-fault-retry-after",
    },
    {
      problem: "X-Sendmock-Fault-Retry-After: 2.5",
      call: { headers: { "X-Sendmock-Fault": "server_error", "X-Sendmock-Fault-Retry-After": "2.5" } },
      says: /X-Sendmock-Fault-Retry-After must be a whole number/,
      path: "/headers/x-sendmock-fault-retry-after",
    },
    {
      problem: "X-Sendmock-Fault-Retry-After: soon",
      call: { headers: { "X-Sendmock-Fault": "rate_limit", "X-Sendmock-Fault-Retry-After": "soon" } },
      says: /X-Sendmock-Fault-Retry-After must be a whole number/,
      path: "/headers/x-sendmock-fault-retry-after",
    },
    {
      problem: "X-Sendmock-Fault-Retry-After over a day",
      call: { headers: { "X-Sendmock-Fault": "rate_limit", "X-Sendmock-Fault-Retry-After": "99999999999999999999" } },
      says: /X-Sendmock-Fault-Retry-After must be at most 86400/,
      path: "/headers/x-sendmock-fault-retry-after",
    },
    {
      problem: "X-Sendmock-Fault-Retry-After on a latency",
      call: { headers: { "X-Sendmock-Fault": "latency", "X-Sendmock-Fault-Retry-After": "5" } },
      says: /X-Sendmock-Fault-Retry-After does not apply to the fault latency/,
      path: "/headers/x-sendmock-fault-retry-after",
    },
    {
      problem: "X-Sendmock-Fault: respond",
      call: { headers: { "X-Sendmock-Fault": "respond" } },
      says: /respond cannot be asked for by a request/,
      path: "/headers/x-sendmock-fault",
    },
    {
      problem: "the magic recipient respond@fault.sendmock.test",
      call: { with: { to: "respond@fault.sendmock.test" } },
      says: /respond cannot be asked for by a request/,
      path: "/to",
    },
    {
      problem: "the magic recipient server_error+503+30+1@fault.sendmock.test",
      call: { with: { to: "server_error+503+30+1@fault.sendmock.test" } },
      says: /server_error takes at most server_error\+S\+R/,
      path: "/to",
    },
    {
      problem: "the magic recipient rate_limit+90000@fault.sendmock.test",
      call: { with: { to: "rate_limit+90000@fault.sendmock.test" } },
      says: /the Retry-After \(\+R\) must be at most 86400/,
      path: "/to",
    },
    {
      problem: "X-Sendmock-Fault-Delay over the rules' maximum of 600000",
      call: { headers: { "X-Sendmock-Fault": "latency", "X-Sendmock-Fault-Delay": "600001" } },
      says: /600000/,
      path: ["/headers/x-sendmock-fault-delay", "/headers/x-sendmock-fault"],
    },
    { problem: "the magic recipient nothing@fault.sendmock.test", call: { with: { to: "nothing@fault.sendmock.test" } }, says: /nothing/, path: "/to" },
    {
      problem: "the magic recipient server_error+418@fault.sendmock.test",
      call: { with: { to: "server_error+418@fault.sendmock.test" } },
      says: /500, 502, 503, 504/,
      path: "/to",
    },
    {
      problem: "the magic recipient latency+600001@fault.sendmock.test",
      call: { with: { to: "latency+600001@fault.sendmock.test" } },
      says: /600000/,
      path: "/to",
    },
    {
      problem: "the magic recipient latency+soon@fault.sendmock.test",
      call: { with: { to: "latency+soon@fault.sendmock.test" } },
      says: /whole number/,
      path: "/to",
    },
  ])("a send with $problem answers 400 invalid_request saying what is wrong, and is not faulted", async ({ call, says, path }) => {
    const mock = theMock();

    // A bad delay that slipped through would hold the send for minutes: give up well before.
    const response = await Promise.race([send(mock, call), sleep(1000).then(() => undefined)]);

    expect(response, "the mock answered at once").toBeDefined();
    if (response === undefined) return;
    expect(expectError(response, { status: 400, code: "invalid_request" })).toMatch(says);
    expect(await capturedCount(mock)).toBe(0);
    const entry = await lastJournalEntry(mock);
    expect(entry).toMatchObject({ status: 400, error_code: "invalid_request", fault: null });
    expect(entry?.violations).toHaveLength(1);
    expect([path].flat()).toContain(entry?.violations[0]?.path);
  });

  it("mock.faults.add rejects a rule the admin API would refuse, with an ApiError saying why", async () => {
    const mock = theMock();

    await expect(mock.faults.add({ fault: "server_error", status: 418 } as never)).rejects.toThrow(ApiError);
    await expect(mock.faults.add({ fault: "explode" } as never)).rejects.toThrow(/fault/);
    await expect(mock.faults.add({ fault: "invalid_recipient", delay_ms: 5 })).rejects.toThrow(/delay_ms does not apply/);
    expect(await mock.faults.list()).toEqual([]);
  });

  it.each([
    { problem: "status: 418", rule: { fault: "server_error", status: 418 }, says: /faults\[1\].*status/ },
    { problem: "an unknown kind", rule: { fault: "explode" }, says: /faults\[1\].*fault/ },
    { problem: "retry_after_s on latency", rule: { fault: "latency", retry_after_s: 1 }, says: /faults\[1\].*retry_after_s does not apply/ },
    { problem: "a respond without a status", rule: { fault: "respond", body: "x" }, says: /faults\[1\]: respond needs a status/ },
    {
      problem: "a respond with a line break in a header",
      rule: { fault: "respond", status: 200, headers: { "X-A": "1\nX-B: 2" } },
      says: /faults\[1\]: headers\.X-A must be printable ASCII on one line/,
    },
  ])("the faults option with $problem makes createSendMock reject with a ConfigError naming the rule", async ({ rule, says }) => {
    const building = aMock({ faults: [{ fault: "rate_limit" }, rule] as never });

    await expect(building).rejects.toThrow(ConfigError);
    await expect(building).rejects.toThrow(says);
  });
});

// ---------------------------------------------------------------------------------------------

describe("managing the rules", () => {
  const FROM_CONFIG: FaultRuleInput = { fault: "server_error", status: 503, times: 2, match: { to: "config@example.com" } };
  const theMock = sharedMockBuiltBy(() => aMock({ faults: [FROM_CONFIG] }));

  async function sendToConfigRule(mock: SendMock): Promise<number> {
    return (await send(mock, { with: { to: "config@example.com" } })).status;
  }

  it("GET /_mock/faults lists the config's rules first, then the added ones, in the order they are tried", async () => {
    const mock = theMock();
    const added = await addFault(mock, { fault: "rate_limit", retry_after_s: 2, match: { template_id: "welcome" } });

    const rules = await listFaults(mock);

    expect(rules).toEqual([
      expect.objectContaining({ fault: "server_error", status: 503, times: 2, source: "config", match: { to: "config@example.com", template_id: null } }),
      added,
    ]);
    expect(added).toMatchObject({ fault: "rate_limit", retry_after_s: 2, source: "api", times: null, probability: 1, api_key_hint: null });
  });

  it("DELETE /_mock/faults/{id} removes that rule only", async () => {
    const mock = theMock();
    const first = await addFault(mock, { fault: "rate_limit" });
    const second = await addFault(mock, { fault: "server_error", status: 502 });

    const response = await deleteFault(mock, first.id);

    expect(response.status).toBe(204);
    expect((await listFaults(mock)).map((rule) => rule.id)).not.toContain(first.id);
    expect((await listFaults(mock)).map((rule) => rule.id)).toContain(second.id);
    expect((await send(mock)).status).toBe(502);
  });

  it("DELETE /_mock/faults/{id} answers 404 not_found for an unknown id", async () => {
    const mock = theMock();

    const response = await deleteFault(mock, "flt_nope");

    expect(expectError(response, { status: 404, code: "not_found" })).toContain("flt_nope");
  });

  it("DELETE /_mock/faults removes every rule, the config's included", async () => {
    const mock = theMock();
    await addFault(mock, { fault: "rate_limit" });

    const response = await request(mock.app).delete("/_mock/faults");
    await expectContract(response, { contract: "admin", method: "delete", path: "/_mock/faults" });

    expect(response.status).toBe(204);
    expect(await listFaults(mock)).toEqual([]);
    expect(await sendToConfigRule(mock)).toBe(200);
    expect((await send(mock)).status).toBe(200);
  });

  it("POST /_mock/reset brings the config's rules back with their times, and drops the added ones", async () => {
    const mock = theMock();
    expect(await sendToConfigRule(mock)).toBe(503);
    await addFault(mock, { fault: "rate_limit" });
    expect(await listFaults(mock)).toEqual([expect.objectContaining({ source: "config", times: 1 }), expect.objectContaining({ source: "api" })]);

    await resetOverHttp(mock);

    expect(await listFaults(mock)).toEqual([expect.objectContaining({ source: "config", times: 2 })]);
    expect(await sendToConfigRule(mock)).toBe(503);
    expect(await sendToConfigRule(mock)).toBe(503);
    expect(await sendToConfigRule(mock)).toBe(200);
    expect((await send(mock)).status).toBe(200);
  });

  it("the library's add, list, remove and clear see and change the same rules as the admin API", async () => {
    const mock = theMock();
    const viaLibrary = await mock.faults.add({ fault: "server_error", status: 504, match: { template_id: "newsletter" } });
    const viaHttp = await addFault(mock, { fault: "rate_limit" });

    expect(await mock.faults.list()).toEqual(await listFaults(mock));
    expect((await mock.faults.list()).slice(1)).toEqual([viaLibrary, viaHttp]);

    expect(await mock.faults.remove(viaHttp.id)).toBe(true);
    expect(await mock.faults.remove(viaHttp.id)).toBe(false);
    expect((await listFaults(mock)).map((rule) => rule.id)).not.toContain(viaHttp.id);

    await mock.faults.clear();
    expect(await listFaults(mock)).toEqual([]);
  });

  it("mock.reset() brings the config's rules back and drops the added ones, like POST /_mock/reset", async () => {
    const mock = theMock();
    expect(await sendToConfigRule(mock)).toBe(503);
    await mock.faults.add({ fault: "rate_limit" });

    await mock.reset();

    expect(await mock.faults.list()).toEqual([expect.objectContaining({ source: "config", times: 2 })]);
  });
});

describe("where faults sit in the pipeline: after authentication, the rate limiter and the contract", () => {
  const theMock = sharedMockBuiltBy(() => aMock());

  beforeEach(async () => {
    await addFault(theMock(), { fault: "server_error", status: 503 });
  });

  it("does not fault a send without an API key: 401 missing_api_key, journaled without a fault", async () => {
    const mock = theMock();

    const response = await request(mock.app).post("/send").send(aSendRequest());
    await expectContract(response);

    expectError(response, { status: 401, code: "missing_api_key" });
    expect(await lastJournalEntry(mock)).toMatchObject({ status: 401, fault: null });
  });

  it("does not fault a send the contract refuses: a bad `to` is the real invalid_recipient", async () => {
    const mock = theMock();

    const response = await send(mock, { with: { to: "not-an-address" } });

    const message = expectError(response, { status: 422, code: "invalid_recipient" });
    expect(message).not.toContain(INJECTED);
    expect(await lastJournalEntry(mock)).toMatchObject({ status: 422, error_code: "invalid_recipient", fault: null });
  });

  it("does not fault a send with the wrong Content-Type", async () => {
    const mock = theMock();

    const response = await request(mock.app).post("/send").set(bearer()).set("Content-Type", "text/plain").send(JSON.stringify(aSendRequest()));
    await expectContract(response);

    expectError(response, { status: 415, code: "unsupported_media_type" });
    expect(await lastJournalEntry(mock)).toMatchObject({ fault: null });
  });

  it("does not fault a send the rate limiter refuses", async () => {
    const mock = theMock();
    const patch = await request(mock.app)
      .patch("/_mock/config")
      .send({ rate_limit: { requests: 1, per_seconds: 60 } });
    await expectContract(patch, { contract: "admin", method: "patch", path: "/_mock/config" });
    expect(patch.status).toBe(200);

    expect((await send(mock)).status).toBe(503);
    const limited = await send(mock);

    expect(errorMessageOf(limited)).not.toContain(INJECTED);
    expectError(limited, { status: 429, code: "rate_limited" });
    expect(await lastJournalEntry(mock)).toMatchObject({ status: 429, fault: null });
  });

  it("does not take a magic recipient from a send without an API key", async () => {
    const mock = theMock();

    const response = await request(mock.app)
      .post("/send")
      .send(aSendRequest({ to: magicRecipient({ fault: "rate_limit" }) }));
    await expectContract(response);

    expectError(response, { status: 401, code: "missing_api_key" });
  });

  it("faults before the template lookup: the rule's error wins over an unknown template_id", async () => {
    const mock = theMock();

    const response = await send(mock, { with: { template_id: "no-such-template" } });

    expectError(response, { status: 503, code: "server_error" });
  });
});

describe("status_codes and injected server errors", () => {
  it("moves the status of a server_error fault that names none, and leaves a named one alone", async () => {
    const mock = await aMockForThisTest({ statusCodes: { server_error: 503 } });
    const unnamed = await send(mock, { headers: { "X-Sendmock-Fault": "server_error" } });
    expect(expectError(unnamed, { status: 503, code: "server_error" }), "the message names the status it has").toMatch(/^Service unavailable/);
    const named = await send(mock, { headers: { "X-Sendmock-Fault": "server_error", "X-Sendmock-Fault-Status": "504" } });
    expectError(named, { status: 504, code: "server_error" });
  });
});

// ---------------------------------------------------------------------------------------------

/** POST /send with the response taken as it comes: a respond fault may break the contract on purpose. */
async function sendAsIs(mock: SendMock, call: SendCall = {}): Promise<{ status: number; headers: Record<string, string | undefined>; text: string }> {
  const response = await request(mock.app)
    .post("/send")
    .set({ ...bearer(), ...call.headers })
    .send(aSendRequest(call.with))
    .buffer(true)
    .parse(readText);
  return { status: response.status, headers: response.headers, text: response.body as string };
}

const SHAPE_A_RATE_LIMITED = { success: false, error: { code: "rate_limited", message: "Slow down" } };
/** A 429 as some services send it: no Retry-After, which the contract requires. */
const BARE_429: FaultRuleInput = { fault: "respond", status: 429, headers: { "X-Sendmock-Error-Code": "rate_limited" }, body: SHAPE_A_RATE_LIMITED };

describe("the respond fault: the rule's status, headers and body, as given, even off the contract", () => {
  const theMock = sharedMockBuiltBy(() => aMock({ faults: [{ ...BARE_429, match: { to: "config-respond@example.com" } }] }));

  it.each([
    { way: "a rule posted to /_mock/faults", arm: async (mock: SendMock): Promise<SendCall> => (await addFault(mock, BARE_429), {}) },
    { way: "mock.faults.add", arm: async (mock: SendMock): Promise<SendCall> => (await mock.faults.add(BARE_429), {}) },
    { way: "a rule of the faults option", arm: (): Promise<SendCall> => Promise.resolve({ with: { to: "config-respond@example.com" } }) },
  ])("a 429 without Retry-After through $way goes out as given, is not captured, and the journal lists what departs", async ({ arm }) => {
    const mock = theMock();
    const call = await arm(mock);

    const response = await sendAsIs(mock, call);

    expect(response.status).toBe(429);
    expect(response.headers["retry-after"]).toBeUndefined();
    expect(response.headers["x-sendmock-error-code"]).toBe("rate_limited");
    expect(response.headers["content-type"]).toBe("application/json");
    expect(response.text).toBe(JSON.stringify(SHAPE_A_RATE_LIMITED));
    expect(await capturedCount(mock)).toBe(0);
    expect(await lastJournalEntry(mock)).toMatchObject({
      status: 429,
      fault: "respond",
      message_id: null,
      error_code: null,
      response_violations: [{ path: "/headers/retry-after", message: "Retry-After header is missing" }],
    });
  });

  it("shows response_violations in GET /_mock/requests, as admin.yaml describes them", async () => {
    const mock = theMock();
    await mock.faults.add(BARE_429);
    await sendAsIs(mock);

    const journal = await request(mock.app).get("/_mock/requests?limit=1");
    await expectContract(journal, { contract: "admin", method: "get", path: "/_mock/requests" });

    expect((journal.body as { requests: JournalEntry[] }).requests[0]?.response_violations).toEqual([
      { path: "/headers/retry-after", message: "Retry-After header is missing" },
    ]);
  });

  it("sends Retry-After as an HTTP date when asked, and the journal says the contract wants whole seconds", async () => {
    const mock = theMock();
    const date = "Wed, 21 Oct 2026 07:28:00 GMT";
    await mock.faults.add({ ...BARE_429, headers: { "Retry-After": date, "X-Sendmock-Error-Code": "rate_limited" } });

    const response = await sendAsIs(mock);

    expect(response.status).toBe(429);
    expect(response.headers["retry-after"]).toBe(date);
    expect((await lastJournalEntry(mock))?.response_violations).toEqual([{ path: "/headers/retry-after", message: "Retry-After header must be integer" }]);
  });

  it("sends an error code the contract does not list, and the journal points at it", async () => {
    const mock = theMock();
    const body = { success: false, error: { code: "quota_exceeded", message: "Monthly quota used up" } };
    await mock.faults.add({ fault: "respond", status: 403, body });

    const response = await sendAsIs(mock);

    expect(response.status).toBe(403);
    expect(JSON.parse(response.text)).toEqual(body);
    expect((await lastJournalEntry(mock))?.response_violations).toEqual([expect.objectContaining({ path: "/body/error/code" })]);
  });

  it("sends a string body as text/plain, or with the Content-Type its headers name", async () => {
    const mock = theMock();
    await mock.faults.add({ fault: "respond", status: 502, body: "<html>Bad gateway</html>", headers: { "Content-Type": "text/html" }, times: 1 });
    await mock.faults.add({ fault: "respond", status: 503, body: "upstream is down", times: 1 });

    const html = await sendAsIs(mock);
    const text = await sendAsIs(mock);

    expect([html.status, html.headers["content-type"], html.text]).toEqual([502, "text/html", "<html>Bad gateway</html>"]);
    expect([text.status, text.headers["content-type"], text.text]).toEqual([503, "text/plain; charset=utf-8", "upstream is down"]);
    expect((await lastJournalEntry(mock))?.response_violations).toEqual([
      { path: "/headers/content-type", message: "content type text/plain is not in the contract for 503" },
    ]);
  });

  it("lists no departure for an answer the contract allows, and null for every answer it did not judge", async () => {
    const mock = theMock();
    const ordinary = await send(mock);
    expect(ordinary.status).toBe(200);
    expect((await lastJournalEntry(mock))?.response_violations).toBeNull();
    await mock.faults.add({ fault: "respond", status: 200, body: { success: true, message_id: "msg_made_up", status: "queued" } });

    const response = await send(mock);

    expect(response.body).toEqual({ success: true, message_id: "msg_made_up", status: "queued" });
    expect(await capturedCount(mock)).toBe(1);
    expect(await lastJournalEntry(mock)).toMatchObject({ status: 200, fault: "respond", message_id: null, response_violations: [] });
  });

  it("answers a 204 without a body", async () => {
    const mock = theMock();
    await mock.faults.add({ fault: "respond", status: 204 });

    const response = await sendAsIs(mock);

    expect(response.status).toBe(204);
    expect(response.text).toBe("");
  });

  it("shows its headers and body in GET /_mock/faults; the other kinds show them null", async () => {
    const mock = theMock();
    const added = await addFault(mock, { fault: "respond", status: 418, body: "I'm a teapot" });
    const other = await addFault(mock, { fault: "server_error", status: 503, retry_after_s: 30 });

    expect(await listFaults(mock)).toEqual([expect.objectContaining({ source: "config", headers: { "X-Sendmock-Error-Code": "rate_limited" } }), added, other]);
    expect(added).toMatchObject({ fault: "respond", status: 418, headers: {}, body: "I'm a teapot", retry_after_s: null });
    expect(other).toMatchObject({ fault: "server_error", status: 503, retry_after_s: 30, headers: null, body: null });
  });

  it("refuses a body over body_limit and headers over max_header_bytes, naming the limit", async () => {
    const mock = await aMockForThisTest({ bodyLimit: "1kb", maxHeaderBytes: 1024 });

    const bigBody = await postFault(mock, { fault: "respond", status: 200, body: "x".repeat(1025) });
    const bigHeaders = await postFault(mock, { fault: "respond", status: 200, headers: { "X-Big": "x".repeat(1024) } });

    expect(expectError(bigBody, { status: 400, code: "invalid_request" })).toMatch(/body is 1025 bytes, more than body_limit \(1024\)/);
    expect(expectError(bigHeaders, { status: 400, code: "invalid_request" })).toMatch(/more than max_header_bytes \(1024\)/);
    await expect(mock.faults.add({ fault: "respond", status: 200, body: "x".repeat(1025) })).rejects.toThrow(/body_limit/);
    expect(await listFaults(mock)).toEqual([]);
  });
});
