// Managing fault rules (list, delete, clear, reset, the library), where faults sit in the pipeline of POST /send, and status_codes on injected errors.

import request from "supertest";
import { beforeEach, describe, expect, it } from "vitest";
import type { FaultRuleInput, SendMock } from "../../src/index.js";
import { errorMessageOf, expectError } from "../support/error-responses.js";
import { addFault, deleteFault, INJECTED, lastJournalEntry, listFaults, magicRecipient, resetOverHttp, send } from "../support/fault-calls.js";
import { aMock, aMockForThisTest, aSendRequest, bearer, expectContract, sharedMockBuiltBy } from "../support/helpers.js";

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
