// What the fuzz files share: how many cases each property runs, the checks every response must pass, the count of cases sent, and a mock per response shape.
//
// Property-based robustness of POST /send against a real listening mock: whatever bytes, headers
// and content types a client sends, the response is one the contract documents and never a 5xx,
// the server keeps serving, and every accepted send is captured exactly once.
//
// The fuzz files send 10,000 generated cases per run between them (five properties, 5,000 cases
// per response shape; see RUNS_PER_SHAPE), each followed by a valid send; each file prints how
// many it sent and its share of the plan. fast-check draws a fresh seed every run and prints it,
// with the shrunk counterexample, when a property fails; pass it back as
// `fc.assert(..., { seed, path })` (in checkProperty below, or the property's own fc.assert) to replay.

import http from "node:http";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { ERROR_CODES, startSendMock, type CapturedMessage, type ResponseShape, type RunningSendMock } from "../../../src/index.js";
import { API_KEY, contractViolations } from "../../support/helpers.js";
import { aWelcomeSend } from "./fuzz-generators.js";
import { postRaw, type RawRequest, type RawResponse } from "./post-raw.js";

export const RUNS_PER_SHAPE = {
  arbitraryJson: 700,
  wrongTypes: 900,
  rawBytes: 500,
  headersAndContentTypes: 1100,
  nearValid: 1800,
} as const;
const SHAPES: readonly ResponseShape[] = ["a", "b"];
const PLANNED_CASES = SHAPES.length * Object.values(RUNS_PER_SHAPE).reduce((sum, runs) => sum + runs, 0);

/** A property sends hundreds of requests: far more than the suite's 15 s default per test. */
export const PROPERTY_TIMEOUT_MS = 120_000;

// ---------------------------------------------------------------------------------------------
// Requests.
// ---------------------------------------------------------------------------------------------

export function baseHeaders(): Record<string, string> {
  return { authorization: `Bearer ${API_KEY}`, "content-type": "application/json" };
}

export function jsonRequest(body: unknown): RawRequest {
  return { body: JSON.stringify(body), headers: baseHeaders() };
}

// ---------------------------------------------------------------------------------------------
// The properties every response must have.
// ---------------------------------------------------------------------------------------------

function parseJson(response: RawResponse): unknown {
  try {
    return JSON.parse(response.text);
  } catch {
    throw new Error(`answer ${response.status} is not JSON: ${response.text.slice(0, 200)}`);
  }
}

/** The tracking id of an accepted send's body, or undefined when it carries neither id. */
function trackingIdOf(body: unknown): string | undefined {
  const { message_id: messageId, email_id: emailId } = body as { message_id?: unknown; email_id?: unknown };
  const id = messageId ?? emailId;
  return typeof id === "string" ? id : undefined;
}

export interface CheckedResponse {
  response: RawResponse;
  /** The message an accepted send captured; undefined for a rejected one. */
  captured: CapturedMessage | undefined;
}

/**
 * Sends one request and checks what a client can see: a documented response, no 5xx, the error
 * code header, and the outbox grown by exactly one message for a 2xx (none for the replay of an
 * response kept for its Idempotency-Key) and by none otherwise.
 *
 * Each check adds a sentence to a list, and the list is asserted empty once per response: with a
 * dozen `expect` calls for each of 20,000 responses, vitest's assertion bookkeeping was ~11% of a
 * profile of this file, and one assertion per response took the file from 26.1 to 25.4 s of CPU.
 */
async function sendAndCheck(mock: RunningSendMock, agent: http.Agent, request: RawRequest): Promise<CheckedResponse> {
  const countBefore = (await mock.outbox.stats()).count;
  const response = await postRaw(`${mock.url}/send`, request, agent);
  const body = parseJson(response);
  const problems = await contractViolations({ status: response.status, headers: response.headers, body, text: response.text });
  if (response.status >= 500) problems.push("a 5xx answer");
  const countAfter = (await mock.outbox.stats()).count;
  let captured: CapturedMessage | undefined;
  if (response.status >= 400) {
    const code = response.headers["x-sendmock-error-code"];
    if (!(ERROR_CODES as readonly unknown[]).includes(code)) problems.push(`X-Sendmock-Error-Code ${String(code)} is not a documented code`);
    if ("error" in (body as object) && (body as { error: { code: string } }).error.code !== code) problems.push("the body's error code is not the header's");
    if (countAfter !== countBefore) problems.push("a rejected send was captured");
  } else if (response.status !== 200) {
    problems.push("an answer under 400 other than 200");
  } else if (response.headers["idempotency-replayed"] === "true") {
    // A generated Idempotency-Key met again with the same body: the kept response, sent nothing.
    if (countAfter !== countBefore) problems.push("a replayed answer captured a message");
  } else {
    const trackingId = trackingIdOf(body);
    captured = trackingId === undefined ? undefined : await mock.outbox.get(trackingId);
    if (trackingId === undefined) problems.push("an accepted send carries neither message_id nor email_id");
    else if (captured === undefined) problems.push(`the tracking id ${trackingId} of a 2xx names no captured message`);
    if (countAfter !== countBefore + 1) problems.push(`a 2xx grew the outbox by ${countAfter - countBefore}, not 1`);
  }
  // expect only once something is wrong: the same failure, without vitest's bookkeeping (and
  // this message) for each of 20,000 responses to that pass: 1.3 s of a 57 s profile of this file.
  if (problems.length > 0) expect(problems, `what is wrong with answer ${response.status}: ${response.text.slice(0, 300)}`).toEqual([]);
  return { response, captured };
}

export type ExerciseCase = (mock: RunningSendMock, agent: http.Agent, request: RawRequest) => Promise<CheckedResponse>;

/**
 * The cases of one fuzz file's `properties`, counted, and printed after the file with the share of
 * the plan they stand for: the files' counts add up to the 10,000 planned.
 */
export function countedCases(properties: readonly (keyof typeof RUNS_PER_SHAPE)[]): { exerciseCase: ExerciseCase } {
  const planned = SHAPES.length * properties.reduce((sum, property) => sum + RUNS_PER_SHAPE[property], 0);
  let casesRun = 0;
  afterAll(() => {
    console.log(
      `fuzz: ${casesRun.toLocaleString("en")} generated cases sent to POST /send (${planned.toLocaleString("en")} planned here, of the ${PLANNED_CASES.toLocaleString("en")} the fuzz files plan)`,
    );
  });
  return {
    /** The whole check of one generated case: its own response, then a valid send right after it. */
    exerciseCase: async (mock, agent, request) => {
      casesRun += 1;
      const result = await sendAndCheck(mock, agent, request);
      const next = await sendAndCheck(mock, agent, jsonRequest(aWelcomeSend()));
      if (next.response.status !== 200) expect(next.response.status, "the server still accepts a valid send after this case").toBe(200);
      return result;
    },
  };
}

/** A mock fuzzed in `shape`, and one kept-alive socket to it: each case also proves the connection survives the one before. */
async function startFuzzedMock(shape: ResponseShape): Promise<{ mock: RunningSendMock; agent: http.Agent }> {
  const mock = await startSendMock({
    port: 0,
    responseShape: shape,
    watchTemplates: false,
    allowFaultHeader: false,
    allowMagicRecipients: false,
    // Every property checks the count of captured messages: none may be dropped.
    capacity: 100_000,
  });
  return { mock, agent: new http.Agent({ keepAlive: true, maxSockets: 1 }) };
}

export type CheckProperty = <T>(arbitrary: fc.Arbitrary<T>, numRuns: number, toRequest: (value: T) => Promise<RawRequest> | RawRequest) => Promise<void>;

/** What a fuzz file's tests get in each response shape's block: checkProperty, and the block's mock and socket once it started them. */
export interface Fuzzing {
  checkProperty: CheckProperty;
  started: () => { mock: RunningSendMock; agent: http.Agent };
}

/** The fuzzing describe block, once per response shape, on a mock of its own. */
export function describeFuzzing(exerciseCase: ExerciseCase, tests: (fuzzing: Fuzzing) => void): void {
  describe.each(SHAPES)("POST /send under fuzzing, response shape %s", (shape) => {
    let mock: RunningSendMock;
    let agent: http.Agent;

    beforeAll(async () => {
      ({ mock, agent } = await startFuzzedMock(shape));
    });

    afterAll(async () => {
      agent.destroy();
      await mock.close();
    });

    /** Runs a property and checks, across all its cases, that the outbox grew by the 2xx responses. */
    async function checkProperty<T>(arbitrary: fc.Arbitrary<T>, numRuns: number, toRequest: (value: T) => Promise<RawRequest> | RawRequest): Promise<void> {
      let accepted = 0;
      const countBefore = (await mock.outbox.stats()).count;
      await fc.assert(
        fc.asyncProperty(arbitrary, async (value) => {
          const { captured } = await exerciseCase(mock, agent, await toRequest(value));
          if (captured !== undefined) accepted += 1;
        }),
        { numRuns },
      );
      // Each case is followed by one valid send, captured too.
      expect((await mock.outbox.stats()).count).toBe(countBefore + accepted + numRuns);
    }

    tests({ checkProperty, started: () => ({ mock, agent }) });
  });
}
