// Fault injection as its tests use it: sending to a mock, reading what it did, the admin API for
// rules, and a fault as a header or a magic recipient.

import type { EventEmitter } from "node:events";
import request, { type Response } from "supertest";
import { expect } from "vitest";
import type { FaultRule, FaultRuleInput, JournalEntry, RunningSendMock, SendMock, SendRequest } from "../../src/index.js";
import { aSendRequest, bearer, expectContract } from "./helpers.js";

export const INJECTED = "(fault injected by sendmock)";
/** Timers may fire a little early against `performance.now()`; delays are checked with this much slack. */
export const TIMER_SLACK_MS = 10;

// ---------------------------------------------------------------------------------------------
// Sending, and reading what the mock did.
// ---------------------------------------------------------------------------------------------

/** A send as a client makes it: a valid send of `welcome` with a valid key, changed by these. */
export interface SendCall {
  with?: Partial<SendRequest>;
  headers?: Record<string, string>;
}

/** POST /send; the response is checked against the contract. */
export async function send(mock: SendMock, call: SendCall = {}): Promise<Response> {
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

/**
 * POST /send with the response taken as it comes, the body read as text and not checked against
 * the contract: for a response that claims to be JSON and is not, or a respond fault that breaks
 * the contract on purpose.
 */
export async function sendAsIs(mock: SendMock, call: SendCall = {}): Promise<{ status: number; headers: Record<string, string | undefined>; text: string }> {
  const response = await request(mock.app)
    .post("/send")
    .set({ ...bearer(), ...call.headers })
    .send(aSendRequest(call.with))
    .buffer(true)
    .parse(readText);
  return { status: response.status, headers: response.headers, text: response.body as string };
}

export interface SocketOutcome {
  /** The status, had a response come. */
  status?: number;
  /** Why fetch failed, if it did. */
  error?: unknown;
  elapsedMs: number;
}

/** POST /send with fetch over a real socket: the way to see a held or closed connection. */
export async function sendOverSocket(mock: RunningSendMock, call: SendCall = {}, signal?: AbortSignal): Promise<SocketOutcome> {
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
export function expectClosedWithoutResponse(outcome: SocketOutcome): void {
  expect(outcome.status, "no answer came").toBeUndefined();
  expect(outcome.error).toBeInstanceOf(TypeError);
  expect(String((outcome.error as Error).cause), "the server closed the connection").toMatch(/closed|reset|socket/i);
}

export async function timed<T>(work: () => Promise<T>): Promise<[T, number]> {
  const started = performance.now();
  const result = await work();
  return [result, performance.now() - started];
}

export function statusesOf(responses: readonly Response[]): number[] {
  return responses.map((response) => response.status);
}

export async function capturedCount(mock: SendMock): Promise<number> {
  return (await mock.outbox.list()).total;
}

export async function lastJournalEntry(mock: SendMock): Promise<JournalEntry | undefined> {
  return (await mock.journal.list({ limit: 1 })).requests[0];
}

/** The journal records a request when its connection closes, which the client may see first. */
export async function expectJournaled(mock: SendMock, expected: Partial<JournalEntry>): Promise<void> {
  await expect.poll(() => lastJournalEntry(mock)).toMatchObject(expected);
}

// ---------------------------------------------------------------------------------------------
// The admin API for rules, each response checked against openapi/admin.yaml.
// ---------------------------------------------------------------------------------------------

export async function postFault(mock: SendMock, rule: unknown): Promise<Response> {
  const response = await request(mock.app)
    .post("/_mock/faults")
    .send(rule as object);
  await expectContract(response, { contract: "admin", method: "post", path: "/_mock/faults" });
  return response;
}

/** Adds a rule through `POST /_mock/faults`, as a client of the admin API would. */
export async function addFault(mock: SendMock, rule: FaultRuleInput): Promise<FaultRule> {
  const response = await postFault(mock, rule);
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body as FaultRule;
}

export async function getFaults(mock: SendMock): Promise<Response> {
  const response = await request(mock.app).get("/_mock/faults");
  await expectContract(response, { contract: "admin", method: "get", path: "/_mock/faults" });
  expect(response.status).toBe(200);
  return response;
}

export async function listFaults(mock: SendMock): Promise<FaultRule[]> {
  return ((await getFaults(mock)).body as { faults: FaultRule[] }).faults;
}

export async function deleteFault(mock: SendMock, id: string): Promise<Response> {
  const response = await request(mock.app).delete(`/_mock/faults/${encodeURIComponent(id)}`);
  await expectContract(response, { contract: "admin", method: "delete", path: "/_mock/faults/{id}" });
  return response;
}

export async function resetOverHttp(mock: SendMock): Promise<void> {
  const response = await request(mock.app).post("/_mock/reset");
  await expectContract(response, { contract: "admin", method: "post", path: "/_mock/reset" });
  expect(response.status).toBe(204);
}

// ---------------------------------------------------------------------------------------------
// A fault described once (`FaultSpec`), and two of the five ways in it has (faults-ways-in.test.ts
// tries them all): the X-Sendmock-Fault header and a magic recipient.
// ---------------------------------------------------------------------------------------------

export type FaultSpec = Pick<FaultRuleInput, "fault" | "status" | "retry_after_s" | "delay_ms">;

/** The parameters a spec sets, in the order of a magic recipient's + parts: `server_error+503+30`. */
export function parametersOf(spec: FaultSpec): number[] {
  return [spec.status, spec.retry_after_s, spec.delay_ms].filter((value) => value !== undefined);
}

export function magicRecipient(spec: FaultSpec): string {
  return `${[spec.fault, ...parametersOf(spec)].join("+")}@fault.sendmock.test`;
}

export function faultHeaders(spec: FaultSpec): Record<string, string> {
  return {
    "X-Sendmock-Fault": spec.fault,
    ...(spec.status !== undefined && { "X-Sendmock-Fault-Status": String(spec.status) }),
    ...(spec.delay_ms !== undefined && { "X-Sendmock-Fault-Delay": String(spec.delay_ms) }),
    ...(spec.retry_after_s !== undefined && { "X-Sendmock-Fault-Retry-After": String(spec.retry_after_s) }),
  };
}
