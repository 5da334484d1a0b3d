// Webhook signing against the Standard Webhooks specification's own example and a third party's
// implementation, and what becomes of a payload that breaks openapi/send.yaml: told, recorded,
// never sent.

import { Webhook as StandardWebhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { createClock, createLocalClockOffset } from "../../src/domain/clock.js";
import { createPayloadCache, createWebhookDelivering, createWebhookPool, type WebhookPost } from "../../src/domain/webhook-delivery.js";
import { newWebhook, signatureOf } from "../../src/domain/webhooks.js";
import { createMemoryDeliveryLog, createMemoryDueWork, createMemoryWebhookStore } from "../../src/stores/memory/index.js";
import type { CapturedMessage } from "../../src/wire.js";

const SPEC_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

describe("the webhook-signature header", () => {
  it("is the one the Standard Webhooks specification gives for its example", () => {
    expect(signatureOf(SPEC_SECRET, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, Buffer.from('{"test": 2432232314}'))).toBe(
      "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
    );
  });

  it("is the one the standardwebhooks package computes for any body", () => {
    const body = JSON.stringify({ type: "message.bounced", data: { to: "ädä@example.com", subject: "🎉 {x}" } });
    const at = new Date(1_795_000_000_000);
    expect(signatureOf(SPEC_SECRET, "evt_1", at.getTime() / 1000, Buffer.from(body))).toBe(new StandardWebhook(SPEC_SECRET).sign("evt_1", at, body));
  });
});

describe("a payload that breaks the contract", () => {
  it("is recorded with the problem and reported, and never posted", async () => {
    const clock = createClock(createLocalClockOffset());
    const log = createMemoryDeliveryLog(10);
    const posted: string[] = [];
    const post: WebhookPost = (request) => {
      posted.push(Buffer.from(request.body).toString());
      return Promise.resolve({ status: 200 });
    };
    const problems: string[] = [];
    const message = { id: "msg_1", to: "ada@example.com", template_id: "welcome", subject: "Hi", status: "sent", events: [] } as unknown as CapturedMessage;
    const delivering = createWebhookDelivering({
      store: createMemoryWebhookStore([newWebhook({ url: "http://127.0.0.1:9/hooks" })]),
      log,
      dueWork: createMemoryDueWork(),
      clock,
      messages: { get: () => Promise.resolve(message) },
      post,
      timeoutMs: 1000,
      retryMs: [1000],
      pool: createWebhookPool(4),
      maxPending: 100,
      payloadCache: createPayloadCache(1024 * 1024),
      payloadProblem: () => "/data/status must be equal to one of the allowed values",
      reportProblem: (line) => problems.push(line),
    });
    const event = { type: "message.sent", at: clock.now().toISOString() } as const;

    await delivering.eventRecorded({ message: () => ({ ...message, events: [event] }), dropped: [] }, event);
    await delivering.runDue(clock.nowMs());
    delivering.stop();

    expect(posted).toEqual([]);
    expect(await log.list({})).toMatchObject([
      { attempt: 1, status: null, next_attempt_at: null, error: expect.stringContaining("the payload breaks openapi/send.yaml") as string },
    ]);
    expect(problems).toEqual([expect.stringContaining("/data/status must be equal to one of the allowed values") as string]);
  });
});
