// Signed webhooks: each event of a message posted to a receiver on loopback, verified by the
// `standardwebhooks` package (a third party's code, not sendmock's); the `events` filter and
// `duplicate`; every retry path on the advanced clock; the deliveries list and replay, and their
// `delivery` events on the event stream; the admin API's refusals; reset.

import request, { type Response } from "supertest";
import { Webhook as StandardWebhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import type { SendMock, SendMockOptions, Webhook, WebhookDelivery, WebhookInput } from "../../src/index.js";
import { aMockForThisTest, aRunningMockForThisTest, aSendRequest, bearer, expectContract } from "../support/helpers.js";
import { aRefusingUrl, aWebhookReceiverForThisTest } from "../support/webhook-receiver.js";

/** A step long enough that real time never moves a message on while a test looks at it. */
const STEP_MS = 60_000;
const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

async function admin(mock: SendMock, method: "get" | "post" | "delete", path: string, body?: object): Promise<Response> {
  const call = request(mock.app)[method](path);
  const response = body === undefined ? await call : await call.send(body);
  const documented = path
    .split("?")[0]
    ?.replace(/\/deliveries\/[^/]+\/replay$/, "/deliveries/{id}/replay")
    .replace(/\/webhooks\/wh_[^/]+$/, "/webhooks/{id}")
    .replace(/\/messages\/msg_[^/]+/, "/messages/{id}");
  await expectContract(response, { contract: "admin", method, path: documented });
  return response;
}

/** A mock with lifecycle steps a minute apart, so only the tests' clock advances move messages. */
function aMockWith(options: SendMockOptions): Promise<SendMock> {
  return aMockForThisTest({ lifecycle: { stepMs: STEP_MS }, ...options });
}

async function send(mock: SendMock, to: string): Promise<string> {
  const response = await request(mock.app).post("/send").set(bearer()).send(aSendRequest({ to }));
  expect(response.status).toBe(200);
  return (response.body as { message_id: string }).message_id;
}

async function addWebhook(mock: SendMock, input: WebhookInput): Promise<Webhook> {
  const response = await admin(mock, "post", "/_mock/webhooks", input);
  expect(response.status).toBe(201);
  return response.body as Webhook;
}

async function advance(mock: SendMock, ms: number): Promise<void> {
  expect((await admin(mock, "post", "/_mock/clock", { advance_ms: ms })).status).toBe(200);
}

async function deliveries(mock: SendMock, query = ""): Promise<WebhookDelivery[]> {
  const response = await admin(mock, "get", `/_mock/webhooks/deliveries${query}`);
  expect(response.status).toBe(200);
  return (response.body as { deliveries: WebhookDelivery[] }).deliveries;
}

describe("a delivery", () => {
  it("is signed so that the standardwebhooks library verifies it, with a real-time webhook-timestamp however far the clock moved", async () => {
    const receiver = await aWebhookReceiverForThisTest();
    const mock = await aMockWith({ webhooks: [{ url: receiver.url, secret: SECRET }] });
    await send(mock, "bounced@outcome.sendmock.test");

    await advance(mock, 2 * STEP_MS);

    expect(receiver.received).toHaveLength(2);
    const verifier = new StandardWebhook(SECRET);
    for (const { headers, body, payload } of receiver.received) {
      const verified = verifier.verify(body, headers as Record<string, string>);
      expect(verified).toEqual(payload);
      expect(Math.abs(Number(headers["webhook-timestamp"]) - Date.now() / 1000)).toBeLessThan(30);
      expect(headers["content-type"]).toBe("application/json");
    }
    // Tampered, it no longer verifies.
    const [first] = receiver.received;
    expect(() => verifier.verify(first?.body.replace("sent", "lost") ?? "", first?.headers as Record<string, string>)).toThrow();
  });

  it("carries the event's type, its time on the mock's clock and the message", async () => {
    const receiver = await aWebhookReceiverForThisTest();
    const mock = await aMockWith({ webhooks: [{ url: receiver.url }] });
    const id = await send(mock, "bounced@outcome.sendmock.test");
    await advance(mock, 2 * STEP_MS);

    const message = (await admin(mock, "get", `/_mock/messages/${id}`)).body as { subject: string; events: { at: string }[] };
    expect(receiver.received.map((delivery) => delivery.payload)).toEqual([
      {
        type: "message.sent",
        timestamp: message.events[0]?.at,
        data: { message_id: id, to: "bounced@outcome.sendmock.test", template_id: "welcome", subject: message.subject, status: "sent" },
      },
      {
        type: "message.bounced",
        timestamp: message.events[1]?.at,
        data: { message_id: id, to: "bounced@outcome.sendmock.test", template_id: "welcome", subject: message.subject, status: "bounced", bounce_type: "hard" },
      },
    ]);
    // One webhook-id per event.
    const ids = receiver.received.map((delivery) => delivery.headers["webhook-id"]);
    expect(new Set(ids).size).toBe(2);
  });

  it("carries a click's link, its payload checked against openapi/send.yaml like every other", async () => {
    const receiver = await aWebhookReceiverForThisTest();
    const mock = await aMockWith({ webhooks: [{ url: receiver.url, events: ["message.clicked"] }] });
    await send(mock, "clicked@outcome.sendmock.test");
    await advance(mock, 4 * STEP_MS);

    expect(receiver.received.map((delivery) => delivery.payload)).toMatchObject([
      { type: "message.clicked", data: { status: "clicked", link: "https://app.example.com/login" } },
    ]);
  });

  it("goes only to the webhooks whose events name its type", async () => {
    const everything = await aWebhookReceiverForThisTest();
    const bouncesOnly = await aWebhookReceiverForThisTest();
    const mock = await aMockWith({ webhooks: [{ url: everything.url }] });
    await addWebhook(mock, { url: bouncesOnly.url, events: ["message.bounced", "message.complained"] });
    await send(mock, "bounced@outcome.sendmock.test");
    await send(mock, "delivered@outcome.sendmock.test");
    await advance(mock, 2 * STEP_MS);

    expect(everything.received.map((delivery) => delivery.payload.type).sort()).toEqual([
      "message.bounced",
      "message.delivered",
      "message.sent",
      "message.sent",
    ]);
    expect(bouncesOnly.received.map((delivery) => delivery.payload.type)).toEqual(["message.bounced"]);
  });

  it("comes twice with one webhook-id from a duplicate webhook, for testing idempotent receivers", async () => {
    const receiver = await aWebhookReceiverForThisTest();
    const mock = await aMockWith({ webhooks: [{ url: receiver.url, events: ["message.sent"], duplicate: true }] });
    await send(mock, "ada@example.com");
    await advance(mock, STEP_MS);

    expect(receiver.received).toHaveLength(2);
    expect(receiver.received[0]?.headers["webhook-id"]).toBe(receiver.received[1]?.headers["webhook-id"]);
    expect(receiver.received[0]?.body).toBe(receiver.received[1]?.body);
  });

  it("is sent for an event added by hand", async () => {
    const receiver = await aWebhookReceiverForThisTest();
    const mock = await aMockWith({ webhooks: [{ url: receiver.url }] });
    const id = await send(mock, "ada@example.com");
    expect((await admin(mock, "post", `/_mock/messages/${id}/events`, { type: "message.complained" })).status).toBe(201);
    await advance(mock, 0);

    expect(receiver.received.map((delivery) => delivery.payload.type)).toEqual(["message.complained"]);
  });
});

describe("retries, on the mock's clock", () => {
  const events: WebhookInput["events"] = ["message.sent"];

  it("retries a 500 after the first delay, and stops at the 200", async () => {
    const receiver = await aWebhookReceiverForThisTest();
    receiver.respondWith(500);
    const mock = await aMockWith({ webhooks: [{ url: receiver.url, events }] });
    await send(mock, "ada@example.com");
    await advance(mock, STEP_MS);

    const [failed] = await deliveries(mock);
    expect(failed).toMatchObject({ attempt: 1, status: 500, error: "the receiver answered 500", event_type: "message.sent" });
    expect(Date.parse(failed?.next_attempt_at ?? "") - Date.parse(failed?.at ?? "")).toBe(1000);

    await advance(mock, 1000);
    expect(receiver.received).toHaveLength(2);
    const [succeeded] = await deliveries(mock);
    expect(succeeded).toMatchObject({ attempt: 2, status: 200, error: null, next_attempt_at: null, event_id: failed?.event_id });
    expect(succeeded?.at).toBe(failed?.next_attempt_at);
    expect(receiver.received[1]?.headers["webhook-id"]).toBe(failed?.event_id);

    await advance(mock, 60_000);
    expect(receiver.received).toHaveLength(2);
  });

  it("retries a receiver that refuses connections on each delay of webhook_retry_ms, then gives up", async () => {
    const mock = await aMockWith({ webhooks: [{ url: await aRefusingUrl(), events }], webhookRetryMs: [1000, 5000] });
    await send(mock, "ada@example.com");
    await advance(mock, STEP_MS + 60_000);

    const attempts = (await deliveries(mock)).toReversed();
    expect(attempts.map((attempt) => [attempt.attempt, attempt.status])).toEqual([
      [1, null],
      [2, null],
      [3, null],
    ]);
    expect(attempts[0]?.error).toMatch(/^could not reach the receiver: .*ECONNREFUSED/);
    const start = Date.parse(attempts[0]?.at ?? "");
    expect(attempts.map((attempt) => Date.parse(attempt.at) - start)).toEqual([0, 1000, 6000]);
    expect(attempts.map((attempt) => attempt.next_attempt_at === null)).toEqual([false, false, true]);
  });

  it("retries a receiver that does not answer within webhook_timeout_ms", async () => {
    const receiver = await aWebhookReceiverForThisTest();
    receiver.respondWith("hang");
    const mock = await aMockWith({ webhooks: [{ url: receiver.url, events }], webhookTimeoutMs: 100 });
    await send(mock, "ada@example.com");
    await advance(mock, STEP_MS);

    const [timedOut] = await deliveries(mock);
    expect(timedOut).toMatchObject({ attempt: 1, status: null, error: "no answer within 100 ms (webhook_timeout_ms)" });
    await advance(mock, 1000);
    expect((await deliveries(mock))[0]).toMatchObject({ attempt: 2, status: 200 });
  });

  it("disables the webhook on a 410, with no retry and no later delivery", async () => {
    const receiver = await aWebhookReceiverForThisTest();
    receiver.respondWith(410);
    const mock = await aMockWith({ webhooks: [{ url: receiver.url }] });
    await send(mock, "ada@example.com");
    await advance(mock, STEP_MS);

    expect(await deliveries(mock)).toMatchObject([{ attempt: 1, status: 410, next_attempt_at: null }]);
    const { webhooks } = (await admin(mock, "get", "/_mock/webhooks")).body as { webhooks: Webhook[] };
    expect(webhooks[0]?.enabled).toBe(false);
    await advance(mock, 10 * STEP_MS);
    expect(receiver.received).toHaveLength(1);
  });
});

describe("the story of issue 16, on the clock", () => {
  it("bounced 3 s after sending, its webhook retried three times: all in one test that never sleeps", async () => {
    const receiver = await aWebhookReceiverForThisTest();
    receiver.respondWith(500, 503, 502);
    const mock = await aMockForThisTest({
      lifecycle: { stepMs: 1500 },
      webhooks: [{ url: receiver.url, events: ["message.bounced"] }],
      webhookRetryMs: [1000, 5000, 30000],
    });
    const messageId = await send(mock, "bounced@outcome.sendmock.test");

    await advance(mock, 3000);
    const bounced = (await request(mock.app).get(`/_mock/messages/${messageId}`)).body as { status: string; events: { type: string }[] };
    expect(bounced.status).toBe("bounced");
    expect(bounced.events.map((event) => event.type)).toEqual(["message.sent", "message.bounced"]);
    expect(receiver.received).toHaveLength(1);

    await advance(mock, 1000 + 5000 + 30000);
    const attempts = (await deliveries(mock, `?message_id=${messageId}`)).toReversed();
    expect(attempts.map((attempt) => [attempt.attempt, attempt.status])).toEqual([
      [1, 500],
      [2, 503],
      [3, 502],
      [4, 200],
    ]);
    expect(new Set(receiver.received.map((delivery) => delivery.headers["webhook-id"])).size).toBe(1);
  });
});

describe("a receiver that never answers", () => {
  it("does not hold POST /send: sends are answered while its delivery is still waiting", async () => {
    const receiver = await aWebhookReceiverForThisTest();
    receiver.respondWith("hang");
    // Steps 1 ms apart on real time: the first delivery starts on its own, and hangs.
    const mock = await aRunningMockForThisTest({
      lifecycle: { stepMs: 1 },
      webhooks: [{ url: receiver.url, events: ["message.sent"] }],
      webhookTimeoutMs: 60_000,
    });
    await request(mock.url).post("/send").set(bearer()).send(aSendRequest()).expect(200);
    await expect.poll(() => receiver.received.length).toBe(1);

    const responses = await Promise.all(Array.from({ length: 20 }, () => request(mock.url).post("/send").set(bearer()).send(aSendRequest())));
    expect(responses.map((response) => response.status)).toEqual(Array.from({ length: 20 }, () => 200));
    // The first delivery is still waiting for its response, and listed as such.
    const [first] = (await mock.webhooks.deliveries()).toReversed();
    expect(first).toMatchObject({ attempt: 1, status: null, error: null, next_attempt_at: null });
  });
});

describe("the deliveries list and replay", () => {
  it("filters by message and webhook, limits, and lists newest first", async () => {
    const receiver = await aWebhookReceiverForThisTest();
    const mock = await aMockWith({ webhooks: [{ url: receiver.url }] });
    const other = await addWebhook(mock, { url: receiver.url, events: ["message.delivered"] });
    const first = await send(mock, "ada@example.com");
    const second = await send(mock, "bob@example.com");
    await advance(mock, 2 * STEP_MS);

    expect(await deliveries(mock)).toHaveLength(6);
    const ofFirst = await deliveries(mock, `?message_id=${first}`);
    expect(ofFirst.map((delivery) => delivery.message_id)).toEqual([first, first, first]);
    expect(ofFirst.map((delivery) => delivery.event_type)).toEqual(["message.delivered", "message.delivered", "message.sent"]);
    expect((await deliveries(mock, `?webhook_id=${other.id}`)).map((delivery) => delivery.message_id).sort()).toEqual([first, second].sort());
    expect(await deliveries(mock, "?limit=2")).toHaveLength(2);
  });

  it("replays an event now: a new attempt with the same webhook-id and body, signed anew", async () => {
    const receiver = await aWebhookReceiverForThisTest();
    const mock = await aMockWith({ webhooks: [{ url: receiver.url, events: ["message.sent"], secret: SECRET }] });
    await send(mock, "ada@example.com");
    await advance(mock, STEP_MS);
    const [original] = await deliveries(mock);

    const response = await admin(mock, "post", `/_mock/webhooks/deliveries/${original?.id ?? ""}/replay`);

    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ event_id: original?.event_id, attempt: 2, status: 200, next_attempt_at: null });
    expect(receiver.received).toHaveLength(2);
    const [before, replayed] = receiver.received;
    expect(replayed?.headers["webhook-id"]).toBe(before?.headers["webhook-id"]);
    expect(replayed?.body).toBe(before?.body);
    expect(new StandardWebhook(SECRET).verify(replayed?.body ?? "", replayed?.headers as Record<string, string>)).toEqual(before?.payload);
  });

  it("is what mock.webhooks reads and replays too", async () => {
    const receiver = await aWebhookReceiverForThisTest();
    const mock = await aMockWith({});
    const webhook = await mock.webhooks.add({ url: receiver.url, events: ["message.sent"] });
    expect(await mock.webhooks.list()).toEqual([webhook]);
    const id = await send(mock, "ada@example.com");
    await mock.clock.advance(STEP_MS);

    const [delivery] = await mock.webhooks.deliveries({ messageId: id });
    expect(delivery).toMatchObject({ webhook_id: webhook.id, attempt: 1, status: 200 });
    expect(await mock.webhooks.replay(delivery?.id ?? "")).toMatchObject({ attempt: 2 });
    expect(await mock.webhooks.remove(webhook.id)).toBe(true);
    expect(await mock.webhooks.list()).toEqual([]);
  });
});

describe("the webhooks API", () => {
  it("lists the config's webhooks with a generated secret, adds and removes", async () => {
    const mock = await aMockWith({ webhooks: [{ url: "http://127.0.0.1:9/hooks" }] });
    const { webhooks } = (await admin(mock, "get", "/_mock/webhooks")).body as { webhooks: Webhook[] };
    expect(webhooks).toEqual([
      {
        id: expect.stringMatching(/^wh_/) as string,
        url: "http://127.0.0.1:9/hooks",
        events: ["message.sent", "message.deferred", "message.delivered", "message.bounced", "message.complained", "message.opened", "message.clicked"],
        secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{32}$/) as string,
        duplicate: false,
        enabled: true,
      },
    ]);
    const added = await addWebhook(mock, { url: "https://hooks.example.com/email", events: ["message.bounced"], duplicate: true });
    expect(added).toMatchObject({ url: "https://hooks.example.com/email", events: ["message.bounced"], duplicate: true, enabled: true });

    expect((await admin(mock, "delete", `/_mock/webhooks/${added.id}`)).status).toBe(204);
    expect((await admin(mock, "delete", `/_mock/webhooks/${added.id}`)).status).toBe(404);
    expect(((await admin(mock, "get", "/_mock/webhooks")).body as { webhooks: Webhook[] }).webhooks).toHaveLength(1);
  });

  it.each([
    ["a URL that is not http(s)", { url: "file:///etc/passwd" }, 'url must be an http or https URL, got "file:///etc/passwd"'],
    ["no URL", { events: ["message.sent"] }, "url"],
    ["an unknown event type", { url: "http://127.0.0.1:9/", events: ["message.lost"] }, "events"],
    ["a secret without whsec_", { url: "http://127.0.0.1:9/", secret: "hunter2" }, "secret"],
    ["an unknown key", { url: "http://127.0.0.1:9/", retries: 3 }, "retries"],
  ])("refuses %s with 400 invalid_request", async (_name, body, mentions) => {
    const mock = await aMockWith({});
    const response = await admin(mock, "post", "/_mock/webhooks", body);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ error: { code: "invalid_request" } });
    expect((response.body as { error: { message: string } }).error.message).toContain(mentions);
  });

  it("refuses a webhook past max_rules", async () => {
    const mock = await aMockWith({ maxRules: 1, webhooks: [{ url: "http://127.0.0.1:9/" }] });
    const response = await admin(mock, "post", "/_mock/webhooks", { url: "http://127.0.0.1:9/other" });
    expect(response.status).toBe(400);
    expect((response.body as { error: { message: string } }).error.message).toBe("Too many webhooks: at most 1 (max_rules); remove some first");
  });

  it("answers 404 for a replay of an unknown delivery", async () => {
    const mock = await aMockWith({});
    const response = await admin(mock, "post", "/_mock/webhooks/deliveries/whd_nope/replay");
    expect(response.status).toBe(404);
    expect(response.body).toMatchObject({ error: { code: "not_found", message: 'No webhook delivery with id "whd_nope"' } });
  });
});

describe("reset", () => {
  it("puts the config's webhooks back, forgets the deliveries and drops pending retries", async () => {
    const receiver = await aWebhookReceiverForThisTest();
    receiver.respondWith(500);
    const mock = await aMockWith({ webhooks: [{ url: receiver.url, events: ["message.sent"] }] });
    const [startUp] = await mock.webhooks.list();
    await mock.webhooks.add({ url: receiver.url, events: ["message.bounced"] });
    await send(mock, "ada@example.com");
    await advance(mock, STEP_MS);
    expect(await deliveries(mock)).toHaveLength(1);

    expect((await admin(mock, "post", "/_mock/reset")).status).toBe(204);

    expect(await mock.webhooks.list()).toEqual([startUp]);
    expect(await deliveries(mock)).toEqual([]);
    await advance(mock, 60_000);
    expect(receiver.received).toHaveLength(1);
  });
});

describe("GET /_mock/events", () => {
  it("streams a delivery event for each attempt as it is recorded: the failure, its retry, and a replay", async () => {
    const receiver = await aWebhookReceiverForThisTest();
    receiver.respondWith(500);
    const mock = await aRunningMockForThisTest({ lifecycle: { stepMs: STEP_MS }, webhooks: [{ url: receiver.url, events: ["message.sent"] }] });
    const controller = new AbortController();
    const stream = await fetch(`${mock.url}/_mock/events`, { signal: controller.signal });
    const reader = (stream.body as ReadableStream<Uint8Array>).pipeThrough(new TextDecoderStream()).getReader();
    await send(mock, "ada@example.com");

    await advance(mock, STEP_MS);
    await advance(mock, 1000);
    const [retried] = await deliveries(mock);
    await admin(mock, "post", `/_mock/webhooks/deliveries/${retried?.id ?? ""}/replay`);

    let seen = "";
    while ((seen.match(/event: delivery\n/g) ?? []).length < 3) {
      const { value, done } = await reader.read();
      if (done) break;
      seen += value;
    }
    controller.abort();
    const streamed = [...seen.matchAll(/event: delivery\ndata: (.*)\n/g)].map((match) => JSON.parse(match[1] ?? "{}") as WebhookDelivery);
    // Each is the attempt as GET /_mock/webhooks/deliveries lists it (newest first there).
    expect(streamed).toEqual((await deliveries(mock)).reverse());
    expect(streamed.map(({ attempt, status }) => ({ attempt, status }))).toEqual([
      { attempt: 1, status: 500 },
      { attempt: 2, status: 200 },
      { attempt: 3, status: 200 },
    ]);
  });
});
