// GET /_mock/requests: the journal of every request to /send, newest first, and its limit.

import request from "supertest";
import { describe, expect, it } from "vitest";
import type { TemplateData } from "../../src/index.js";
import { checked, expectAdminError, listRequests, receipt, send, sendOk } from "../support/admin-calls.js";
import { aSendRequest, API_KEY, sharedMock } from "../support/helpers.js";
import { anAcceptedSendEntry } from "../support/journal-entries.js";

describe("GET /_mock/requests", () => {
  const shared = sharedMock();

  it("lists accepted and rejected requests newest first", async () => {
    const mock = shared();
    const before = Date.now();
    const acceptedId = await sendOk(mock);
    const rejected = await send(mock, { to: "x" });
    expect(rejected.status).toBe(422);

    const journal = await listRequests(mock);

    expect(journal.total).toBe(2);
    const [newest, oldest] = journal.requests;
    expect(newest).toMatchObject({
      method: "POST",
      path: "/send",
      status: 422,
      error_code: "invalid_recipient",
      violations: [{ path: "/to" }],
      fault: null,
      message_id: null,
      api_key_hint: API_KEY.slice(-4),
      to: "x",
      template_id: "welcome",
    });
    expect(newest?.error_message).toContain("to");
    expect(oldest).toMatchObject(anAcceptedSendEntry({ fault: null, message_id: acceptedId }));
    expect(oldest?.duration_ms).toBeGreaterThanOrEqual(0);
    expect(Date.parse(oldest?.at ?? "")).toBeGreaterThanOrEqual(before - 1);
    expect(Date.parse(oldest?.at ?? "")).toBeLessThanOrEqual(Date.now());
  });

  it("points each violation of a contract failure at the field in the body", async () => {
    const mock = shared();
    const response = await send(mock, {
      cc: ["not-an-address"],
      data: { name: 42, company: "Acme", login_url: "https://app.example.com/login" } as unknown as TemplateData,
    });
    expect(response.status).toBe(400);

    const [entry] = (await listRequests(mock)).requests;

    expect(entry).toMatchObject({ status: 400, error_code: "invalid_request" });
    const paths = entry?.violations.map((violation) => violation.path);
    expect(paths).toEqual(expect.arrayContaining(["/cc/0", "/data/name"]));
    for (const violation of entry?.violations ?? []) expect(violation.message).not.toBe("");
  });

  it("records a request without an API key with a violation on its Authorization header", async () => {
    const mock = shared();
    const response = await request(mock.app).post("/send").send(aSendRequest());
    expect(response.status).toBe(401);

    const [entry] = (await listRequests(mock)).requests;

    expect(entry).toMatchObject({
      status: 401,
      error_code: "missing_api_key",
      api_key_hint: null,
      message_id: null,
      violations: [{ path: "/headers/authorization" }],
    });
  });

  it("returns at most limit entries, the newest, while total counts every entry", async () => {
    const mock = shared();
    await sendOk(mock);
    await send(mock, { to: "x" });
    const lastId = await sendOk(mock, receipt());

    const journal = await listRequests(mock, { limit: 1 });

    expect(journal.requests).toHaveLength(1);
    expect(journal.requests[0]?.message_id).toBe(lastId);
    expect(journal.total).toBe(3);
  });

  it("finds each request in the journal as soon as its answer has arrived", async () => {
    const mock = shared();
    for (let round = 1; round <= 20; round += 1) {
      const id = await sendOk(mock);
      const journal = await listRequests(mock, { limit: 1 });
      expect(journal.total, `after send ${String(round)}`).toBe(round);
      expect(journal.requests[0]?.message_id).toBe(id);
    }
  });

  it.each([["0"], ["x"], ["20000"]])("rejects limit=%s with 400 invalid_request", async (limit) => {
    const mock = shared();
    const response = await checked(await request(mock.app).get("/_mock/requests").query({ limit }), "get", "/_mock/requests");
    expectAdminError(response, 400, "invalid_request");
  });
});
