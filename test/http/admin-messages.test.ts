// GET /_mock/messages: the list, its filters and paging, and waiting for a message with wait_ms.

import request from "supertest";
import { describe, expect, it, vi } from "vitest";
import type { CapturedMessage, MessageList } from "../../src/index.js";
import { aListeningWait, checked, expectAdminError, listMessages, receipt, sendOk } from "../support/admin-calls.js";
import { aMockAndScopeForThisTest, aMockForThisTest as aTrackedMock, aSendRequest, API_KEY, sharedMock } from "../support/helpers.js";

/** Returns once the clock has moved past `time`, so the next capture gets a later created_at. */
async function afterInstant(time: string): Promise<void> {
  await vi.waitFor(() => expect(Date.now()).toBeGreaterThan(Date.parse(time)), { interval: 1 });
}

describe("GET /_mock/messages", () => {
  const shared = sharedMock();

  it("answers an empty list before anything is sent", async () => {
    const mock = shared();
    expect(await listMessages(mock)).toEqual({ messages: [], total: 0 });
  });

  it("lists the captured messages newest first, as they were rendered", async () => {
    const mock = shared();
    const welcomeId = await sendOk(mock);
    const receiptId = await sendOk(mock, receipt({ cc: ["billing@example.com"], reply_to: "support@example.com" }));

    const list = await listMessages(mock);

    expect(list.total).toBe(2);
    expect(list.messages.map((message) => message.id)).toEqual([receiptId, welcomeId]);
    expect(list.messages[1]).toMatchObject({
      id: welcomeId,
      status: "queued",
      to: "ada@example.com",
      cc: [],
      bcc: [],
      reply_to: null,
      template_id: "welcome",
      subject: "Welcome to Analytical Engines, Ada!",
      data: aSendRequest().data,
      warnings: [],
      links: ["https://app.example.com/login"],
      api_key_hint: API_KEY.slice(-4),
    });
    expect(list.messages[0]).toMatchObject({ cc: ["billing@example.com"], reply_to: "support@example.com", subject: "Your receipt for order #1042" });
  });

  it("filters on to exactly and case-insensitively, with the address written unencoded in the URL", async () => {
    const mock = shared();
    const adaId = await sendOk(mock, { to: "ada@example.com" });
    await sendOk(mock, { to: "adam@example.com" });
    await sendOk(mock, { to: "grace@example.com", cc: ["ada@example.com"] });

    const response = await checked(await request(mock.app).get("/_mock/messages?to=ada@example.com"), "get", "/_mock/messages");
    expect(response.status).toBe(200);
    expect((response.body as MessageList).messages.map((message) => message.id)).toEqual([adaId]);

    const upper = await checked(await request(mock.app).get("/_mock/messages?to=ADA@Example.com"), "get", "/_mock/messages");
    expect((upper.body as MessageList).messages.map((message) => message.id)).toEqual([adaId]);
  });

  it("filters on recipient across to, cc and bcc", async () => {
    const mock = shared();
    const direct = await sendOk(mock, { to: "billing@example.com" });
    const copied = await sendOk(mock, { to: "ada@example.com", cc: ["billing@example.com"] });
    const blind = await sendOk(mock, { to: "grace@example.com", bcc: ["Billing@Example.com"] });
    await sendOk(mock, { to: "linus@example.com", cc: ["ada@example.com"] });

    const list = await listMessages(mock, { recipient: "billing@example.com" });

    expect(list.messages.map((message) => message.id)).toEqual([blind, copied, direct]);
    expect(list.total).toBe(3);
  });

  it("filters on template_id", async () => {
    const mock = shared();
    await sendOk(mock);
    const receiptId = await sendOk(mock, receipt());

    const list = await listMessages(mock, { template_id: "order-receipt" });

    expect(list).toMatchObject({ total: 1, messages: [{ id: receiptId, template_id: "order-receipt" }] });
    expect((await listMessages(mock, { template_id: "order" })).total).toBe(0);
  });

  it("filters on a case-insensitive substring of the subject", async () => {
    const mock = shared();
    await sendOk(mock);
    const receiptId = await sendOk(mock, receipt());

    expect((await listMessages(mock, { subject: "RECEIPT FOR order #10" })).messages.map((message) => message.id)).toEqual([receiptId]);
    expect((await listMessages(mock, { subject: "invoice" })).total).toBe(0);
  });

  it("searches q case-insensitively in the addresses, subject, bodies and data, with the other filters", async () => {
    const mock = shared();
    const welcomeId = await sendOk(mock);
    const receiptId = await sendOk(mock, receipt({ to: "ada@example.com", reply_to: "Support@Example.com" }));
    await sendOk(mock, receipt({ to: "grace@example.com" }));

    expect((await listMessages(mock, { q: "ANALYTICAL engines" })).messages.map((message) => message.id)).toEqual([welcomeId]);
    expect((await listMessages(mock, { q: "support@example" })).messages.map((message) => message.id)).toEqual([receiptId]);
    expect(await listMessages(mock, { q: "order #1042", to: "ada@example.com", limit: 1 })).toMatchObject({ total: 1, messages: [{ id: receiptId }] });
    expect((await listMessages(mock, { q: "order #1042" })).total).toBe(2);
    expect((await listMessages(mock, { q: "nowhere" })).total).toBe(0);
  });

  it("waits with wait_ms for a message that q finds", async () => {
    const mock = shared();
    const waiting = listMessages(mock, { q: "Analytical", wait_ms: 5000 });
    await sendOk(mock, receipt());
    const welcomeId = await sendOk(mock);

    expect((await waiting).messages.map((message) => message.id)).toEqual([welcomeId]);
  });

  it("keeps messages created at or after since", async () => {
    const mock = shared();
    const firstId = await sendOk(mock);
    const first = await mock.outbox.get(firstId);
    await afterInstant(first?.created_at ?? "");
    const secondId = await sendOk(mock);
    const second = await mock.outbox.get(secondId);
    const since = second?.created_at ?? "";

    expect((await listMessages(mock, { since })).messages.map((message) => message.id)).toEqual([secondId]);
    expect((await listMessages(mock, { since: "2000-01-01T00:00:00Z" })).total).toBe(2);
    expect((await listMessages(mock, { since: "2999-01-01T00:00:00+02:00" })).total).toBe(0);
  });

  it("refuses a since that is not a date and time, saying what one looks like", async () => {
    const response = await request(shared().app).get("/_mock/messages?since=yesterday");
    expect(response.status).toBe(400);
    expect((response.body as { error: { message: string } }).error.message).toBe(
      "Invalid request: query.since must be a date and time such as 2026-11-22T09:26:00Z (RFC 3339)",
    );
  });

  it("returns at most limit messages, the newest, while total counts every match", async () => {
    const mock = shared();
    const ids = [await sendOk(mock), await sendOk(mock), await sendOk(mock)];
    await sendOk(mock, receipt());

    const list = await listMessages(mock, { template_id: "welcome", limit: 2 });

    expect(list.messages.map((message) => message.id)).toEqual([ids[2], ids[1]]);
    expect(list.total).toBe(3);
  });

  it("returns the newest 100 when no limit is given, as the contract's default says", async () => {
    const { mock, scope } = await aMockAndScopeForThisTest();
    const sample = await mock.outbox.get(await sendOk(mock));
    for (let index = 1; index <= 104; index += 1) {
      await scope.outbox.add({ ...(sample as CapturedMessage), id: `msg_copy_${String(index)}` });
    }

    const list = await listMessages(mock);

    expect(list.total).toBe(105);
    expect(list.messages).toHaveLength(100);
    expect(list.messages[0]?.id).toBe("msg_copy_104");
  });

  it.each([
    ["limit=0", { limit: "0" }],
    ["limit=x", { limit: "x" }],
    ["limit=20000", { limit: "20000" }],
    ["since=yesterday", { since: "yesterday" }],
    ["since without a time", { since: "2025-03-14" }],
    ["wait_ms=-1", { wait_ms: "-1" }],
    ["q longer than 256 characters", { q: "x".repeat(257) }],
  ])("rejects %s with 400 invalid_request", async (_name, query) => {
    const mock = shared();

    const response = await checked(await request(mock.app).get("/_mock/messages").query(query), "get", "/_mock/messages");

    expectAdminError(response, 400, "invalid_request");
  });
});

describe("waiting for a message with wait_ms", () => {
  it("answers a waiting request with the message as soon as it is sent", async () => {
    const { mock, scope } = await aMockAndScopeForThisTest();
    const { response: pending } = await aListeningWait(mock, scope, { to: "ada@example.com", wait_ms: 2000 });

    const sentId = await sendOk(mock, { to: "ada@example.com" });
    const response = await checked(await pending, "get", "/_mock/messages");

    // A wait that ran out instead would have listed nothing.
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ total: 1, messages: [{ id: sentId, to: "ada@example.com" }] });
  });

  it("keeps waiting past a message that does not match", async () => {
    const { mock, scope } = await aMockAndScopeForThisTest();
    const { response: pending } = await aListeningWait(mock, scope, { template_id: "order-receipt", wait_ms: 2000 });

    await sendOk(mock);
    const receiptId = await sendOk(mock, receipt());
    const response = await checked(await pending, "get", "/_mock/messages");

    expect(response.body).toMatchObject({ total: 1, messages: [{ id: receiptId }] });
  });

  it("answers at once when a match is already there", async () => {
    const mock = await aTrackedMock();
    const sentId = await sendOk(mock);

    // The longest wait there is, past the test's own timeout: waiting at all would fail the test.
    const list = await listMessages(mock, { to: "ada@example.com", wait_ms: 60_000 });

    expect(list.messages.map((message) => message.id)).toEqual([sentId]);
  });

  it("ends a pending wait with an empty list when the mock closes", async () => {
    const { mock, scope } = await aMockAndScopeForThisTest();
    // Past the test's own timeout: only the close can end it in time.
    const { response: pending } = await aListeningWait(mock, scope, { to: "ada@example.com", wait_ms: 60_000 });

    await mock.close();
    const response = await checked(await pending, "get", "/_mock/messages");

    expect(response.status).toBe(200);
    expect(response.body).toEqual({ messages: [], total: 0 });
  });

  it("answers an empty list and what came closest once wait_ms runs out without a match", async () => {
    const mock = await aTrackedMock();
    await sendOk(mock, { to: "grace@example.com" });

    const started = performance.now();
    const list = await listMessages(mock, { to: "ada@example.com", wait_ms: 100 });
    const elapsed = performance.now() - started;

    expect(list).toMatchObject({ messages: [], total: 0, timed_out: { waited_ms: 100, near_misses: [{ kind: "close_recipient" }] } });
    expect(list.timed_out?.message).toMatch(
      /^no message with to=ada@example.com in any sandbox within 100 ms \(1 captured there\)\nnear misses:\n {2}- close recipient grace@example.com: msg_/,
    );
    expect(elapsed).toBeGreaterThanOrEqual(90);
  });
});
