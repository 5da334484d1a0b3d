// Every fault kind through every way in that can express it: a posted rule, mock.faults.add, the faults option, the header and a magic recipient.

import { afterEach, describe, expect, it, vi } from "vitest";
import type { ErrorCode, FaultRuleInput, SendMock } from "../../src/index.js";
import { expectError, SHAPES } from "../support/error-responses.js";
import {
  addFault,
  capturedCount,
  expectClosedWithoutResponse,
  expectJournaled,
  faultHeaders,
  type FaultSpec,
  INJECTED,
  lastJournalEntry,
  magicRecipient,
  parametersOf,
  send,
  type SendCall,
  sendAsIs as sendForText,
  sendOverSocket,
  TIMER_SLACK_MS,
  timed,
} from "../support/fault-calls.js";
import { aMock, aRunningMock, sharedMockBuiltBy } from "../support/helpers.js";

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
// The five ways in. A fault is described once (`FaultSpec`) and each way turns it into what a
// user does: post a rule, add it from a test, start with it in the config, send the header, or
// send to a magic recipient.
// ---------------------------------------------------------------------------------------------

function labelOf(spec: FaultSpec): string {
  const parameters = Object.entries(spec).filter(([key]) => key !== "fault");
  return parameters.length === 0 ? spec.fault : `${spec.fault} with ${parameters.map(([name, value]) => `${name} ${String(value)}`).join(" and ")}`;
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
    await mock.faults.add({ fault: "timeout", times: 1 });
    let settled = false;
    const pending = sendOverSocket(mock).finally(() => (settled = true));

    // The rule is used up once the send has reached the mock and been given the fault: it is held, not answered.
    await vi.waitFor(async () => expect(await mock.faults.list()).toEqual([]));
    expect(settled).toBe(false);

    // Held for 30 s otherwise, twice the test's own timeout: only the close lets the test finish.
    await mock.close();
    const outcome = await pending;
    expectClosedWithoutResponse(outcome);
  });
});
