// Limits a sandbox does not multiply (docs/sandboxes.md#bounds): webhook attempts made at once, attempts waiting and open event
// streams count every sandbox together, so that 30 sandboxes cannot hold 30 times what one may.

import request from "supertest";
import { describe, expect, it, onTestFinished } from "vitest";
import type { SendMock } from "../../src/mock.js";
import type { WebhookDelivery } from "../../src/wire.js";
import { aMockForThisTest, aRunningMockForThisTest, aSendRequest, bearer } from "../support/helpers.js";
import { aHoldingReceiverForThisTest, aWebhookReceiverForThisTest } from "../support/webhook-receiver.js";

/** Lifecycle steps a minute apart: only the tests' own advances move messages on. */
const STEP_MS = 60_000;

async function sendIn(mock: SendMock, sandbox: string): Promise<string> {
  const response = await request(mock.app)
    .post("/send")
    .set({ ...bearer(), "X-Sendmock-Sandbox": sandbox })
    .send(aSendRequest());
  expect(response.status).toBe(200);
  return (response.body as { message_id: string }).message_id;
}

const sandboxNames = (count: number): string[] => Array.from({ length: count }, (_, index) => `worker-${index + 1}`);

describe("webhook attempts across sandboxes", () => {
  it("are made at most webhook_concurrency at once whatever the number of sandboxes: a receiver that holds them sees no more", async () => {
    const receiver = await aHoldingReceiverForThisTest();
    const mock = await aMockForThisTest({ lifecycle: { stepMs: STEP_MS }, webhookConcurrency: 4, webhookTimeoutMs: 60_000 });
    const names = sandboxNames(8);
    const boxes = await Promise.all(names.map((name) => mock.sandbox(name)));
    for (const [index, box] of boxes.entries()) {
      await box.webhooks.add({ url: receiver.url, events: ["message.sent"] });
      await sendIn(mock, names[index] ?? "");
    }

    // Every sandbox's message.sent falls due at once, each to a webhook of its own.
    const advances = boxes.map((box) => box.clock.advance(STEP_MS));
    // Let them through one at a time, until all are made.
    await receiver.releaseOneByOne(names.length);
    await Promise.all(advances);

    expect(receiver.received()).toBe(names.length);
    expect(receiver.peak()).toBeLessThanOrEqual(4);
  });

  it("give one webhook heard in every sandbox its share of the one pool, not a share in each sandbox", async () => {
    const hung = await aWebhookReceiverForThisTest({ fallback: "hang" });
    const responding = await aWebhookReceiverForThisTest();
    const mock = await aMockForThisTest({
      lifecycle: { stepMs: STEP_MS },
      webhookConcurrency: 4,
      webhookTimeoutMs: 60_000,
      // Added without a sandbox: each hears every sandbox's events.
      webhooks: [
        { url: hung.url, events: ["message.sent"] },
        { url: responding.url, events: ["message.sent"] },
      ],
    });
    const names = sandboxNames(8);
    for (const name of names) await sendIn(mock, name);

    for (const name of names) void (await mock.sandbox(name)).clock.advance(STEP_MS);

    await expect.poll(() => responding.received.length, { timeout: 10_000 }).toBe(names.length);
    // A quarter of 4 places, and more while another quarter stays free: three at most, the fourth left to the other webhook.
    expect(hung.received.length).toBeLessThanOrEqual(3);
  });

  it("wait at most max_pending_webhook_attempts across sandboxes: past it an event's attempt is listed as not sent", async () => {
    const receiver = await aWebhookReceiverForThisTest({ fallback: "hang" });
    const mock = await aMockForThisTest({ lifecycle: { stepMs: STEP_MS }, webhookConcurrency: 1, webhookTimeoutMs: 60_000, maxPendingWebhookAttempts: 3 });
    const names = sandboxNames(5);
    for (const name of names) {
      await (await mock.sandbox(name)).webhooks.add({ url: receiver.url, events: ["message.opened"] });
      const id = await sendIn(mock, name);
      await request(mock.app).post(`/_mock/messages/${id}/events`).query({ sandbox: name }).send({ type: "message.opened" }).expect(201);
    }

    // Without a sandbox, the list is every sandbox's.
    const { deliveries } = (await request(mock.app).get("/_mock/webhooks/deliveries").expect(200)).body as { deliveries: WebhookDelivery[] };
    const notSent = deliveries.filter((delivery) => delivery.error?.includes("max_pending_webhook_attempts") === true);
    expect(notSent).toHaveLength(2);
    expect(notSent[0]).toMatchObject({ error: "not sent: 3 attempts already wait (max_pending_webhook_attempts)" });
  });
});

describe("event streams across sandboxes", () => {
  it("are at most max_event_streams open on the whole mock, whichever sandbox each follows: one more is 503 until one closes", async () => {
    const mock = await aRunningMockForThisTest({ maxEventStreams: 2 });
    const open = async (sandbox?: string): Promise<{ status: number; close: () => void; retryAfter: string | null; body: string }> => {
      const controller = new AbortController();
      const response = await fetch(`${mock.url}/_mock/events${sandbox === undefined ? "" : `?sandbox=${sandbox}`}`, { signal: controller.signal });
      const body = response.status === 200 ? "" : await response.text();
      return { status: response.status, close: () => controller.abort(), retryAfter: response.headers.get("retry-after"), body };
    };
    const first = await open("worker-1");
    const second = await open("worker-2");
    onTestFinished(() => {
      first.close();
      second.close();
    });
    expect([first.status, second.status]).toEqual([200, 200]);

    for (const sandbox of ["worker-3", undefined]) {
      const refused = await open(sandbox);
      expect(refused.status).toBe(503);
      expect(refused.retryAfter).toBe("1");
      expect(refused.body).toContain("at most 2 are open (max_event_streams)");
    }

    first.close();
    await expect
      .poll(async () => {
        const again = await open("worker-3");
        again.close();
        return again.status;
      })
      .toBe(200);
  });
});
