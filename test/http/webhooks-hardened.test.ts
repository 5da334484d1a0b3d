// Webhook deliveries where issue 28 found them weak: receivers that hang or are slow hold neither
// an advance of the clock nor the lifecycle; payloads are not copied per attempt nor kept in the
// deliveries list; pending attempts are bounded and leave with their message; a long advance lets
// other requests through; replays are numbered once each and never reach a disabled webhook.

import request from "supertest";
import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/errors.js";
import type { SendMock, SendMockOptions, WebhookDelivery } from "../../src/index.js";
import { liveHeapBytes } from "../support/heap.js";
import { aMockForThisTest, aRunningMockForThisTest, aSendRequest, bearer } from "../support/helpers.js";
import { aWebhookReceiverForThisTest } from "../support/webhook-receiver.js";

/** Lifecycle steps a minute apart: only the tests' own advances move messages on. */
const STEP_MS = 60_000;
const MB = 1024 * 1024;

function aMockWith(options: SendMockOptions): Promise<SendMock> {
  return aMockForThisTest({ lifecycle: { stepMs: STEP_MS }, ...options });
}

async function send(mock: SendMock, overrides: Parameters<typeof aSendRequest>[0] = {}): Promise<string> {
  const response = await request(mock.app).post("/send").set(bearer()).send(aSendRequest(overrides));
  expect(response.status).toBe(200);
  return (response.body as { message_id: string }).message_id;
}

/** A send whose rendered subject (and text and html) holds `bytes` characters of its name: the request's own `subject` is capped, a rendered one is not. */
const aLargeSend = (bytes: number, to = "ada@example.com") =>
  aSendRequest({ to, data: { name: "n".repeat(bytes), company: "Acme", login_url: "https://x.example" } });

async function advance(mock: SendMock, ms: number): Promise<void> {
  const response = await request(mock.app).post("/_mock/clock").send({ advance_ms: ms });
  expect(response.status).toBe(200);
}

/** The highest attempt number listed: an advance that waited through N webhook_timeout_ms would list attempt N + 1. */
const lastAttempt = async (mock: SendMock): Promise<number> => Math.max(0, ...(await mock.webhooks.deliveries()).map((delivery) => delivery.attempt));

const waiting = (delivery: WebhookDelivery): boolean => delivery.status === null && delivery.error === null;

describe("receivers that never answer", () => {
  // Long enough that what is listed when an advance responds cannot move on by another timeout
  // before it is read, even on a busy machine.
  const TIMEOUT_MS = 1000;

  it("hold an advance at most webhook_timeout_ms, however many attempts hang; those still waiting are listed as such and finish in the background", async () => {
    const receiver = await aWebhookReceiverForThisTest({ fallback: "hang" });
    const mock = await aMockWith({ webhooks: [{ url: receiver.url }], webhookTimeoutMs: TIMEOUT_MS });
    const ids = [await send(mock), await send(mock), await send(mock)];

    // Both events of each message and every retry of them fall due in this one advance: one
    // after another that was 3 messages x 2 events x 4 attempts x TIMEOUT_MS (24 s). Judged by
    // what is listed when it responds, not by a clock: waiting out one webhook_timeout_ms lists
    // attempt 2 at most, while waiting for the retries would list attempts 3 and 4.
    await advance(mock, 2 * STEP_MS + 60_000);

    expect(await lastAttempt(mock)).toBeLessThanOrEqual(2);
    // The lifecycle went on whatever the receiver did.
    for (const id of ids) expect((await mock.outbox.get(id))?.status).toBe("delivered");
    const listed = await mock.webhooks.deliveries();
    expect(listed.filter(waiting).length).toBeGreaterThan(0);
    expect(listed.filter(waiting).map((delivery) => delivery.next_attempt_at)).toEqual(listed.filter(waiting).map(() => null));
    // In the background each waiting attempt times out and its retry follows the (advanced) clock.
    await expect
      .poll(async () => (await mock.webhooks.deliveries()).filter((delivery) => delivery.attempt === 2 && !waiting(delivery)).length, { timeout: 10_000 })
      .toBe(6);
    const retried = (await mock.webhooks.deliveries()).find((delivery) => delivery.attempt === 2 && !waiting(delivery));
    expect(retried).toMatchObject({ status: null, error: `no answer within ${TIMEOUT_MS} ms (webhook_timeout_ms)` });
  });

  it("leave the other webhooks room: a receiver that answers gets every event while one hangs", async () => {
    const hung = await aWebhookReceiverForThisTest({ fallback: "hang" });
    const responding = await aWebhookReceiverForThisTest();
    const mock = await aMockWith({ webhooks: [{ url: hung.url }, { url: responding.url }], webhookTimeoutMs: 60_000, webhookConcurrency: 4 });
    for (let index = 0; index < 10; index += 1) await send(mock, { to: `room${index}@example.com` });

    void mock.clock.advance(STEP_MS);

    await expect.poll(() => responding.received.length).toBe(10);
    expect(hung.received.length).toBeLessThanOrEqual(3);
  });

  it("hold two clients' advances at once no longer than one", async () => {
    const receiver = await aWebhookReceiverForThisTest({ fallback: "hang" });
    const mock = await aMockWith({ webhooks: [{ url: receiver.url }, { url: receiver.url }, { url: receiver.url }], webhookTimeoutMs: TIMEOUT_MS });
    for (let index = 0; index < 5; index += 1) await send(mock, { to: `hang${index}@example.com` });

    // Each waits out one webhook_timeout_ms at most: when both have responded, no retry past the first was made.
    await Promise.all([advance(mock, 2 * STEP_MS + 60_000), advance(mock, 0)]);

    expect(await lastAttempt(mock)).toBeLessThanOrEqual(2);
    expect((await mock.webhooks.deliveries()).filter(waiting).length).toBeGreaterThan(0);
  });
});

describe("a slow receiver", () => {
  it("does not slow the lifecycle: one event every step_ms holds, deliveries run side by side", async () => {
    // 150 ms per response: one at a time, 20 messages x 2 events took 6 s to get through.
    const receiver = await aWebhookReceiverForThisTest({ fallback: { status: 200, afterMs: 150 } });
    const mock = await aRunningMockForThisTest({ lifecycle: { stepMs: 50 }, webhooks: [{ url: receiver.url }] });
    const sends = Array.from({ length: 20 }, (_, index) =>
      request(mock.url)
        .post("/send")
        .set(bearer())
        .send(aSendRequest({ to: `slow${index}@example.com` })),
    );
    expect((await Promise.all(sends)).map((response) => response.status)).toEqual(sends.map(() => 200));

    await expect.poll(async () => (await mock.outbox.list({ status: "delivered" })).total, { timeout: 1500, interval: 20 }).toBe(20);
    await expect.poll(() => receiver.received.length, { timeout: 3000 }).toBe(40);
  });
});

describe("large payloads", () => {
  it("are not copied into each pending attempt: 50 webhooks' attempts of 5 events of a 400 KB subject weigh about one message", async () => {
    const receiver = await aWebhookReceiverForThisTest({ fallback: "hang" });
    const mock = await aMockWith({ webhookTimeoutMs: 60_000, journalBodyBytes: 0 });
    for (let index = 0; index < 50; index += 1) await mock.webhooks.add({ url: receiver.url, events: ["message.opened"] });
    const id = await send(mock, aLargeSend(400_000));
    const before = liveHeapBytes();

    for (let index = 0; index < 5; index += 1) {
      expect((await request(mock.app).post(`/_mock/messages/${id}/events`).send({ type: "message.opened" })).status).toBe(201);
    }
    await expect.poll(() => receiver.received.length).toBeGreaterThan(0);

    // Copied into each of the 250 attempts, that was 100 MB.
    expect((liveHeapBytes() - before) / MB).toBeLessThan(20);
  });

  it("are not kept by the deliveries list: once the messages are deleted, the heap is back near where it was", async () => {
    const receiver = await aWebhookReceiverForThisTest();
    // Room for all 40 messages: only the deliveries list is to keep anything of them afterwards.
    const problems: string[] = [];
    const mock = await aMockWith({ webhooks: [{ url: receiver.url }], journalBodyBytes: 0, maxBytes: "128mb", log: (line) => problems.push(line) });
    const before = liveHeapBytes();
    for (let index = 0; index < 40; index += 1) await send(mock, aLargeSend(400_000, `big${index}@example.com`));
    await advance(mock, 2 * STEP_MS);
    expect(problems).toEqual([]);
    expect(await mock.webhooks.deliveries()).toHaveLength(80);

    expect((await request(mock.app).delete("/_mock/messages")).status).toBe(204);
    // The receiver's own copies are not the mock's.
    receiver.received.length = 0;

    // Each attempt's body kept in the list was 80 x 400 KB (32 MB).
    expect((liveHeapBytes() - before) / MB).toBeLessThan(12);
    expect(await mock.webhooks.deliveries()).toHaveLength(80);
  });
});

describe("pending attempts", () => {
  it("are at most max_pending_webhook_attempts: past it an attempt is listed as not sent", async () => {
    const receiver = await aWebhookReceiverForThisTest({ fallback: "hang" });
    const mock = await aMockWith({ webhookTimeoutMs: 60_000, maxPendingWebhookAttempts: 20, webhookConcurrency: 4 });
    for (let index = 0; index < 10; index += 1) await mock.webhooks.add({ url: receiver.url, events: ["message.opened"] });
    const id = await send(mock);

    for (let index = 0; index < 5; index += 1) await request(mock.app).post(`/_mock/messages/${id}/events`).send({ type: "message.opened" }).expect(201);

    const refused = (await mock.webhooks.deliveries()).filter((delivery) => delivery.error?.includes("max_pending_webhook_attempts") === true);
    expect(refused).toHaveLength(30);
    expect(refused[0]).toMatchObject({ status: null, next_attempt_at: null, error: "not sent: 20 attempts already wait (max_pending_webhook_attempts)" });
    await expect.poll(() => receiver.received.length).toBe(4);
  });

  it("leave with their message when it is dropped for room: its retry is never posted", async () => {
    const receiver = await aWebhookReceiverForThisTest({ fallback: 500 });
    const mock = await aMockWith({ capacity: 1, webhooks: [{ url: receiver.url, events: ["message.sent"] }] });
    const dropped = await send(mock, { to: "first@example.com" });
    await advance(mock, STEP_MS);
    expect(receiver.received).toHaveLength(1);

    await send(mock, { to: "second@example.com" });
    await advance(mock, 60_000);

    expect(receiver.received.filter((delivery) => delivery.payload.data.message_id === dropped)).toHaveLength(1);
  });

  it("leave with their message when it is deleted", async () => {
    const receiver = await aWebhookReceiverForThisTest({ fallback: 500 });
    const mock = await aMockWith({ webhooks: [{ url: receiver.url, events: ["message.sent"] }] });
    const deleted = await send(mock);
    await advance(mock, STEP_MS);

    expect((await request(mock.app).delete(`/_mock/messages/${deleted}`)).status).toBe(204);
    await advance(mock, 60_000);

    expect(receiver.received).toHaveLength(1);
  });
});

describe("a large advance", () => {
  /** 4,000 steps in one advance: 2,000 messages (8,000 steps) cost ~4 s more of the suite, and held requests no longer. */
  const MESSAGES = 1000;

  it("lets other requests through while it runs, each in well under 100 ms", async () => {
    const mock = await aRunningMockForThisTest({ lifecycle: { stepMs: STEP_MS } });
    const body = (index: number): string => JSON.stringify(aSendRequest({ to: `clicked+${index}@outcome.sendmock.test` }));
    const headers = { ...bearer(), "Content-Type": "application/json" };
    // 4 events each: 4,000 steps, which ran in one go and held every other request until they were done.
    for (let sent = 0; sent < MESSAGES; sent += 100) {
      await Promise.all(Array.from({ length: 100 }, (_, index) => fetch(`${mock.url}/send`, { method: "POST", headers, body: body(sent + index) })));
    }
    await fetch(`${mock.url}/_mock/health`);

    let advanced = false;
    const advancing = mock.clock.advance(4 * STEP_MS).then(() => (advanced = true));
    const isAdvancing = (): boolean => !advanced;
    const waits: number[] = [];
    let respondedDuringAdvance = 0;
    while (isAdvancing()) {
      const started = performance.now();
      const response = await fetch(`${mock.url}/_mock/health`);
      expect(response.status).toBe(200);
      waits.push(performance.now() - started);
      if (isAdvancing()) respondedDuringAdvance += 1;
    }
    await advancing;

    expect((await mock.outbox.list({ status: "clicked" })).total).toBe(MESSAGES);
    expect(respondedDuringAdvance).toBeGreaterThan(1);
    // The median, not the longest: on a busy machine one wait may take a descheduled moment more.
    const median = waits.toSorted((a, b) => a - b)[Math.floor(waits.length / 2)] ?? Number.POSITIVE_INFINITY;
    expect(median).toBeLessThan(100);
  });
});

describe("replays", () => {
  it("each get an attempt number of their own, however many run at once", async () => {
    const receiver = await aWebhookReceiverForThisTest();
    const mock = await aMockWith({ webhooks: [{ url: receiver.url, events: ["message.sent"] }] });
    await send(mock);
    await advance(mock, STEP_MS);
    const [original] = await mock.webhooks.deliveries();

    const replays = await Promise.all(Array.from({ length: 200 }, () => mock.webhooks.replay(original?.id ?? "")));

    expect(new Set(replays.map((replay) => replay.attempt)).size).toBe(200);
    expect(Math.min(...replays.map((replay) => replay.attempt))).toBe(2);
    expect(receiver.received).toHaveLength(201);
  });

  it("are refused for a webhook a 410 disabled, and post nothing", async () => {
    const receiver = await aWebhookReceiverForThisTest();
    receiver.respondWith(410);
    const mock = await aMockWith({ webhooks: [{ url: receiver.url, events: ["message.sent"] }] });
    await send(mock);
    await advance(mock, STEP_MS);
    const [gone] = await mock.webhooks.deliveries();
    expect(gone).toMatchObject({ status: 410 });

    const response = await request(mock.app).post(`/_mock/webhooks/deliveries/${gone?.id ?? ""}/replay`);

    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ error: { code: "invalid_request", message: expect.stringContaining("is disabled") as string } });
    await expect(mock.webhooks.replay(gone?.id ?? "")).rejects.toBeInstanceOf(ApiError);
    expect(receiver.received).toHaveLength(1);
  });
});
