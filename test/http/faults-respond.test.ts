// The respond fault: the rule's status, headers and body go out as given, even off the contract, and the journal lists what departs.

import request from "supertest";
import { describe, expect, it } from "vitest";
import type { FaultRuleInput, JournalEntry, SendMock } from "../../src/index.js";
import { expectError } from "../support/error-responses.js";
import { addFault, capturedCount, lastJournalEntry, listFaults, postFault, send, sendAsIs, type SendCall } from "../support/fault-calls.js";
import { aMock, aMockForThisTest, expectContract, sharedMockBuiltBy } from "../support/helpers.js";

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
