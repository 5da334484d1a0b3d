// The request journal as QA reads it: when a request arrived, the request as received (key
// masked, body as text up to 64 KB) and the response as sent, a client that gave up, and the
// `to` and `template_id` of requests refused before their body was checked.

import http from "node:http";
import { once } from "node:events";
import { setTimeout as sleep } from "node:timers/promises";
import request from "supertest";
import { describe, expect, it } from "vitest";
import type { JournalEntry, JournalList, RunningSendMock } from "../../src/index.js";
import { API_KEY, aRunningMock, aRunningMockForThisTest, aSendRequest, bearer, expectContract, sharedMockBuiltBy } from "../support/helpers.js";

const MAX_BODY_BYTES = 64 * 1024;

/** `kept` is the start of `whole`, as much of it as fits in `maxBytes` once written as JSON (a `"` takes 2). */
function expectStartOf(whole: string, kept: string, maxBytes: number): void {
  expect(whole.startsWith(kept), "the start of the body").toBe(true);
  const storedBytes = Buffer.byteLength(JSON.stringify(kept)) - 2;
  expect(storedBytes).toBeLessThanOrEqual(maxBytes);
  expect(storedBytes).toBeGreaterThan(maxBytes - 4);
}

/** The newest entry, read through GET /_mock/requests and checked against admin.yaml. */
async function lastEntry(mock: RunningSendMock): Promise<JournalEntry> {
  const response = await request(mock.app).get("/_mock/requests?limit=1");
  await expectContract(response, { contract: "admin", method: "get", path: "/_mock/requests" });
  const [entry] = (response.body as JournalList).requests;
  expect(entry, "the request is in the journal").toBeDefined();
  return entry as JournalEntry;
}

/** POST /send with these exact body bytes and headers (a valid key and JSON unless told). */
function sendBytes(mock: RunningSendMock, body: string | Buffer, headers: Record<string, string> = {}) {
  return request(mock.app)
    .post("/send")
    .set({ ...bearer(), "Content-Type": "application/json", ...headers })
    .send(body);
}

/** Resolves once the mock has journaled a request matching `expected`. */
async function journaled(mock: RunningSendMock, expected: Partial<JournalEntry>): Promise<JournalEntry> {
  await expect.poll(async () => (await mock.journal.list({ limit: 1 })).requests[0], { timeout: 5000 }).toMatchObject(expected);
  return lastEntry(mock);
}

describe("a journal entry", () => {
  const theMock = sharedMockBuiltBy(() => aRunningMock({ rateLimit: { requests: 1, perSeconds: 60 } }));

  it("is stamped with the request's arrival, not its answer: a 300 ms latency send shows the gap", async () => {
    const mock = theMock();
    const sentAt = Date.now();
    await sendBytes(mock, JSON.stringify(aSendRequest()), { "X-Sendmock-Fault": "latency", "X-Sendmock-Fault-Delay": "300" }).expect(200);
    const respondedAt = Date.now();

    const entry = await lastEntry(mock);
    const arrivedAt = Date.parse(entry.at);
    expect(arrivedAt).toBeGreaterThanOrEqual(sentAt);
    expect(respondedAt - arrivedAt).toBeGreaterThanOrEqual(300);
    expect(entry.duration_ms).toBeGreaterThanOrEqual(300);
  });

  it("keeps the headers as received, the API key shown only as Bearer … and its last 4 characters", async () => {
    const mock = theMock();
    await sendBytes(mock, JSON.stringify(aSendRequest()), { "X-Api-Key": "secret-api-key-5678", "X-Request-Id": "abc-123" }).expect(200);

    const { headers } = (await lastEntry(mock)).request;
    expect(headers).toMatchObject({
      authorization: `Bearer …${API_KEY.slice(-4)}`,
      "x-api-key": "…5678",
      "content-type": "application/json",
      "x-request-id": "abc-123",
    });
    expect(JSON.stringify(headers)).not.toContain(API_KEY);
    expect(JSON.stringify(headers)).not.toContain("secret-api-key");
  });

  it("keeps the body of a valid send as the text that was sent", async () => {
    const mock = theMock();
    const sent = JSON.stringify(aSendRequest(), null, 2);
    await sendBytes(mock, sent).expect(200);

    expect((await lastEntry(mock)).request).toMatchObject({ body: sent, body_truncated: false });
  });

  it("keeps a body that is not JSON as it came, the request refused", async () => {
    const mock = theMock();
    const sent = '{"to": "ada@example.com", "template_id": ';
    await sendBytes(mock, sent).expect(400);

    expect(await lastEntry(mock)).toMatchObject({ error_code: "invalid_json", request: { body: sent, body_truncated: false } });
  });

  it("keeps the body sent with the wrong content type, and names its to and template_id", async () => {
    const mock = theMock();
    const sent = JSON.stringify(aSendRequest());
    await sendBytes(mock, sent, { "Content-Type": "text/plain" }).expect(415);

    expect(await lastEntry(mock)).toMatchObject({ to: "ada@example.com", template_id: "welcome", request: { body: sent, body_truncated: false } });
  });

  it("keeps the first 64 KB of a longer body, cut between characters, and says it is cut", async () => {
    const mock = theMock();
    // "é" takes 2 bytes: a cut at 64 KB by bytes alone could split one.
    const sent = ` ${JSON.stringify(aSendRequest({ data: { name: "é".repeat(50_000), company: "Acme", login_url: "https://x.example" } }))}`;
    await sendBytes(mock, sent).expect(200);

    const { body, body_truncated } = (await lastEntry(mock)).request;
    expect(body_truncated).toBe(true);
    expectStartOf(sent, body ?? "!", MAX_BODY_BYTES);
  });

  it("keeps the answer of an accepted send as it was written", async () => {
    const mock = theMock();
    const response = await sendBytes(mock, JSON.stringify(aSendRequest())).expect(200);

    const entry = await lastEntry(mock);
    expect(entry.response).toEqual({
      status: 200,
      headers: expect.objectContaining({ "content-type": response.headers["content-type"], "content-length": response.headers["content-length"] }) as unknown,
      body: response.text,
      body_truncated: false,
    });
    expect(entry.client_gone).toBe(false);
  });

  it("keeps the answer of a refused send, its error code header included", async () => {
    const mock = theMock();
    const response = await sendBytes(mock, JSON.stringify(aSendRequest({ cc: ["not an address"] }))).expect(422);

    expect((await lastEntry(mock)).response).toMatchObject({
      status: 422,
      headers: { "x-sendmock-error-code": "invalid_recipient" },
      body: response.text,
    });
  });

  it("keeps the non-JSON body a malformed_response fault wrote", async () => {
    const mock = theMock();
    const response = await sendBytes(mock, JSON.stringify(aSendRequest()), { "X-Sendmock-Fault": "malformed_response" })
      .buffer(true)
      .parse((res, done) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (text += chunk));
        res.on("end", () => done(null, text));
      });

    const entry = await lastEntry(mock);
    expect(entry.response).toMatchObject({ status: 200, body: response.body as string });
    expect(() => JSON.parse(entry.response?.body ?? "") as unknown).toThrow(SyntaxError);
  });

  it("has no answer for a disconnect fault: status 0, response null, and the client did not leave", async () => {
    const mock = theMock();
    await expect(
      fetch(`${mock.url}/send`, {
        method: "POST",
        headers: { ...bearer(), "Content-Type": "application/json", "X-Sendmock-Fault": "disconnect" },
        body: JSON.stringify(aSendRequest()),
      }),
    ).rejects.toThrow();

    expect(await journaled(mock, { fault: "disconnect" })).toMatchObject({ status: 0, response: null, client_gone: false });
  });

  it("says the client gave up on a timeout fault: client_gone, written when the client left", async () => {
    const mock = theMock();
    await mock.faults.add({ fault: "timeout", delay_ms: 60_000, times: 1 });
    const held = new AbortController();
    const pending = fetch(`${mock.url}/send`, {
      method: "POST",
      headers: { ...bearer(), "Content-Type": "application/json" },
      body: JSON.stringify(aSendRequest()),
      signal: held.signal,
    }).catch(() => undefined);
    // The rule is spent once it applies: the connection is being held.
    await expect.poll(async () => (await mock.faults.list()).length, { timeout: 5000 }).toBe(0);
    held.abort();
    await pending;

    expect(await journaled(mock, { fault: "timeout" })).toMatchObject({ status: 0, response: null, client_gone: true, to: "ada@example.com" });
  });

  it("says sendmock closed the connection when a timeout fault's delay ran out: not client_gone", async () => {
    const mock = theMock();
    const closed = await fetch(`${mock.url}/send`, {
      method: "POST",
      headers: { ...bearer(), "Content-Type": "application/json", "X-Sendmock-Fault": "timeout", "X-Sendmock-Fault-Delay": "100" },
      body: JSON.stringify(aSendRequest()),
    }).then(
      () => "answered",
      () => "closed",
    );

    expect(closed).toBe("closed");
    const entry = await journaled(mock, { fault: "timeout" });
    expect(entry).toMatchObject({ status: 0, response: null, client_gone: false, to: "ada@example.com" });
    expect(entry.duration_ms).toBeGreaterThanOrEqual(100);
  });

  it("names to and template_id of a request the rate limiter refused, and of one without a key", async () => {
    const mock = theMock();
    const body = JSON.stringify(aSendRequest({ to: "grace@example.com", template_id: "password-reset" }));
    await sendBytes(mock, body).expect(422);
    await sendBytes(mock, body).expect(429);
    expect(await lastEntry(mock)).toMatchObject({ error_code: "rate_limited", to: "grace@example.com", template_id: "password-reset" });

    await sendBytes(mock, body, { Authorization: "" }).expect(401);
    expect(await lastEntry(mock)).toMatchObject({ error_code: "missing_api_key", to: "grace@example.com", template_id: "password-reset" });
  });
});

describe("journal_body_bytes", () => {
  it("sets how much of a body an entry keeps, the request's and the answer's", async () => {
    const mock = await aRunningMockForThisTest({ journalBodyBytes: "100b" });
    const sent = JSON.stringify(aSendRequest({ cc: ["not an address"] }));
    const written = await sendBytes(mock, sent).expect(422);

    const { request: kept, response } = await lastEntry(mock);
    expect(kept.body_truncated).toBe(true);
    expectStartOf(sent, kept.body ?? "!", 100);
    expect(response?.body_truncated).toBe(true);
    expectStartOf(written.text, response?.body ?? "!", 100);
  });

  it("keeps no body at all when 0", async () => {
    const mock = await aRunningMockForThisTest({ journalBodyBytes: 0 });
    await sendBytes(mock, JSON.stringify(aSendRequest())).expect(200);

    const entry = await lastEntry(mock);
    expect(entry.request).toMatchObject({ body: "", body_truncated: true });
    expect(entry.response).toMatchObject({ body: "", body_truncated: true });
    expect(entry.to).toBe("ada@example.com");
  });
});

describe("a client that gives up before its answer", () => {
  it("leaves an entry with client_gone, no answer, and the message its send still captured", async () => {
    const mock = await aRunningMockForThisTest();
    const body = JSON.stringify(aSendRequest());
    const client = http.request(`${mock.url}/send`, {
      method: "POST",
      headers: { ...bearer(), "Content-Type": "application/json", "X-Sendmock-Fault": "latency", "X-Sendmock-Fault-Delay": "1500" },
    });
    client.on("error", () => undefined);
    client.end(body);
    await once(client, "finish");
    // Gone while the latency fault waits (1500 ms), as `curl -m` would be.
    await sleep(200);
    client.destroy();

    const entry = await journaled(mock, { client_gone: true });
    const captured = await mock.outbox.get("latest");
    expect(captured).toBeDefined();
    expect(entry).toMatchObject({ status: 0, response: null, fault: "latency", message_id: captured?.id });
  });
});
