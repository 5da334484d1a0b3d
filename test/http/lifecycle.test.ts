// What happens to a message after capture: each outcome's events on the mock's clock, how an
// outcome is chosen (magic recipient, outcome rules, default), events by hand, the status
// filter, the clock itself, and the lifecycle's events on GET /_mock/events.

import request, { type Response } from "supertest";
import { describe, expect, it } from "vitest";
import type { CapturedMessage, MessageEvent, Outcome, SendMock, SendRequest } from "../../src/index.js";
import { aMockAndScopeForThisTest, aMockForThisTest, aRunningMockForThisTest, aSendRequest, bearer, expectContract, sharedMock } from "../support/helpers.js";

/** A step long enough that real time never moves a message on while a test looks at it. */
const STEP_MS = 60_000;

async function send(mock: SendMock, overrides: Partial<SendRequest> = {}, key?: string): Promise<string> {
  const response = await request(mock.app).post("/send").set(bearer(key)).send(aSendRequest(overrides));
  expect(response.status).toBe(200);
  return (response.body as { message_id: string }).message_id;
}

async function admin(mock: SendMock, method: "get" | "post" | "delete", path: string, body?: object): Promise<Response> {
  const call = request(mock.app)[method](path);
  const response = body === undefined ? await call : await call.send(body);
  await expectContract(response, {
    contract: "admin",
    method,
    path: path.split("?")[0]?.replace(/msg_[^/]+|latest|out_[^/]+/, (id) => (id.startsWith("out_") ? "{id}" : "{id}")),
  });
  return response;
}

async function messageOf(mock: SendMock, id: string): Promise<CapturedMessage> {
  const response = await admin(mock, "get", `/_mock/messages/${id}`);
  return response.body as CapturedMessage;
}

async function advance(mock: SendMock, ms: number): Promise<Response> {
  return admin(mock, "post", "/_mock/clock", { advance_ms: ms });
}

const typesOf = (message: CapturedMessage): string[] => message.events.map((event) => event.type);

describe("the outcome table, through magic recipients", () => {
  const mock = sharedMock({ lifecycle: { stepMs: STEP_MS } });

  /** Each outcome's events, and the status after each of them: the last is the final status. */
  const table: [Outcome, [MessageEvent["type"], CapturedMessage["status"]][]][] = [
    [
      "delivered",
      [
        ["message.sent", "sent"],
        ["message.delivered", "delivered"],
      ],
    ],
    [
      "bounced",
      [
        ["message.sent", "sent"],
        ["message.bounced", "bounced"],
      ],
    ],
    [
      "soft_bounced",
      [
        ["message.sent", "sent"],
        ["message.deferred", "deferred"],
        ["message.bounced", "bounced"],
      ],
    ],
    [
      "deferred",
      [
        ["message.sent", "sent"],
        ["message.deferred", "deferred"],
        ["message.delivered", "delivered"],
      ],
    ],
    [
      "complained",
      [
        ["message.sent", "sent"],
        ["message.delivered", "delivered"],
        ["message.complained", "complained"],
      ],
    ],
    [
      "opened",
      [
        ["message.sent", "sent"],
        ["message.delivered", "delivered"],
        ["message.opened", "opened"],
      ],
    ],
    [
      "clicked",
      [
        ["message.sent", "sent"],
        ["message.delivered", "delivered"],
        ["message.opened", "opened"],
        ["message.clicked", "clicked"],
      ],
    ],
  ];

  it.each(table)("%s: one event per step of the clock, each moving the status on", async (outcome, steps) => {
    const id = await send(mock(), { to: `${outcome}@outcome.sendmock.test` });
    const captured = await messageOf(mock(), id);
    expect(captured).toMatchObject({ status: "queued", events: [] });

    for (const [step, [, status]] of steps.entries()) {
      await advance(mock(), STEP_MS);
      const now = await messageOf(mock(), id);
      expect(typesOf(now)).toEqual(steps.slice(0, step + 1).map(([type]) => type));
      expect(now.events[step]?.at).toBe(new Date(Date.parse(captured.created_at) + (step + 1) * STEP_MS).toISOString());
      expect(now.status).toBe(status);
    }
    await advance(mock(), STEP_MS * 5);
    expect(typesOf(await messageOf(mock(), id))).toHaveLength(steps.length);
  });

  it("marks a hard bounce and a soft bounce with bounce_type", async () => {
    const hard = await send(mock(), { to: "bounced@outcome.sendmock.test" });
    const soft = await send(mock(), { to: "soft_bounced+order-42@outcome.sendmock.test" });
    await advance(mock(), STEP_MS * 3);
    expect((await messageOf(mock(), hard)).events.at(-1)).toMatchObject({ type: "message.bounced", bounce_type: "hard" });
    expect((await messageOf(mock(), soft)).events.at(-1)).toMatchObject({ type: "message.bounced", bounce_type: "soft" });
  });

  it("names the first of the message's links on message.clicked", async () => {
    const id = await send(mock(), {
      to: "clicked+signup@outcome.sendmock.test",
      data: { name: "Ada", company: "Acme", login_url: "https://app.example.com/login?x=1" },
    });
    await advance(mock(), STEP_MS * 4);
    expect((await messageOf(mock(), id)).events.at(-1)).toEqual({
      type: "message.clicked",
      at: expect.any(String) as string,
      link: "https://app.example.com/login?x=1",
    });
  });

  it("delivers a message whose magic recipient names no outcome, and says why in its warnings", async () => {
    const id = await send(mock(), { to: "bounce@outcome.sendmock.test" });
    await advance(mock(), STEP_MS * 2);
    const message = await messageOf(mock(), id);
    expect(message.status).toBe("delivered");
    expect(message.warnings.join()).toContain("bounce@outcome.sendmock.test names no outcome");
  });

  it("runs every step that falls due in one advance, each at its own time, before the answer", async () => {
    const id = await send(mock(), { to: "clicked@outcome.sendmock.test" });
    const created = Date.parse((await messageOf(mock(), id)).created_at);
    await advance(mock(), STEP_MS * 10);
    const message = await messageOf(mock(), id);
    expect(message.status).toBe("clicked");
    expect(message.events.map((event) => Date.parse(event.at) - created)).toEqual([1, 2, 3, 4].map((step) => step * STEP_MS));
  });
});

describe("the default step and outcome", () => {
  it("bounces a message 2 s after sending with the default step of 1 s: advanced, not slept", async () => {
    const mock = await aMockForThisTest();
    const id = await send(mock, { to: "bounced@outcome.sendmock.test" });
    await advance(mock, 2000);
    expect(await messageOf(mock, id)).toMatchObject({ status: "bounced" });
  });

  it("delivers an ordinary message", async () => {
    const mock = await aMockForThisTest();
    const id = await send(mock);
    await advance(mock, 2000);
    expect(typesOf(await messageOf(mock, id))).toEqual(["message.sent", "message.delivered"]);
  });

  it("follows lifecycle.default_outcome", async () => {
    const mock = await aMockForThisTest({ lifecycle: { defaultOutcome: "complained" } });
    const id = await send(mock);
    await advance(mock, 3000);
    expect(await messageOf(mock, id)).toMatchObject({ status: "complained" });
  });

  it("keeps every message queued with enabled: false", async () => {
    const mock = await aMockForThisTest({ lifecycle: { enabled: false } });
    const id = await send(mock, { to: "bounced@outcome.sendmock.test" });
    await advance(mock, 60_000);
    expect(await messageOf(mock, id)).toMatchObject({ status: "queued", events: [] });
  });
});

describe("outcome rules", () => {
  it("applies the config's rules, matched as fault rules are", async () => {
    const mock = await aMockForThisTest({
      lifecycle: { stepMs: STEP_MS },
      outcomeRules: [
        { outcome: "bounced", match: { to: "*@bounces.example.com" } },
        { outcome: "opened", match: { template_id: "password-*" } },
      ],
    });
    const bounced = await send(mock, { to: "ada@bounces.example.com" });
    const delivered = await send(mock, { to: "ada@example.com" });
    await advance(mock, STEP_MS * 3);
    expect((await messageOf(mock, bounced)).status).toBe("bounced");
    expect((await messageOf(mock, delivered)).status).toBe("delivered");
  });

  it("adds, lists and removes rules over the admin API; times counts down and the rule goes", async () => {
    const mock = await aMockForThisTest({ lifecycle: { stepMs: STEP_MS } });
    const added = await admin(mock, "post", "/_mock/outcomes", { outcome: "complained", times: 1 });
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({ id: expect.stringMatching(/^out_/) as string, outcome: "complained", times: 1, source: "api" });
    expect((await admin(mock, "get", "/_mock/outcomes")).body).toEqual({ outcomes: [added.body] });

    const first = await send(mock);
    const second = await send(mock);
    await advance(mock, STEP_MS * 3);
    expect((await messageOf(mock, first)).status).toBe("complained");
    expect((await messageOf(mock, second)).status).toBe("delivered");
    expect((await admin(mock, "get", "/_mock/outcomes")).body).toEqual({ outcomes: [] });

    const other = await admin(mock, "post", "/_mock/outcomes", { outcome: "bounced" });
    expect((await admin(mock, "delete", `/_mock/outcomes/${(other.body as { id: string }).id}`)).status).toBe(204);
    expect((await admin(mock, "delete", "/_mock/outcomes/out_nope")).status).toBe(404);
    await admin(mock, "post", "/_mock/outcomes", { outcome: "bounced" });
    expect((await admin(mock, "delete", "/_mock/outcomes")).status).toBe(204);
    expect((await admin(mock, "get", "/_mock/outcomes")).body).toEqual({ outcomes: [] });
  });

  it("refuses an unknown outcome with 400 invalid_request", async () => {
    const mock = await aMockForThisTest();
    const response = await admin(mock, "post", "/_mock/outcomes", { outcome: "exploded" });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ success: false, error: { code: "invalid_request" } });
  });

  it("matches a rule's api_key exactly", async () => {
    const mock = await aMockForThisTest({ lifecycle: { stepMs: STEP_MS } });
    await admin(mock, "post", "/_mock/outcomes", { outcome: "bounced", match: { api_key: "test-key-bounce" } });
    const bounced = await send(mock, {}, "test-key-bounce");
    const delivered = await send(mock);
    await advance(mock, STEP_MS * 2);
    expect((await messageOf(mock, bounced)).status).toBe("bounced");
    expect((await messageOf(mock, delivered)).status).toBe("delivered");
  });

  it("puts a magic recipient before the rules", async () => {
    const mock = await aMockForThisTest({ lifecycle: { stepMs: STEP_MS }, outcomeRules: [{ outcome: "complained" }] });
    const id = await send(mock, { to: "bounced@outcome.sendmock.test" });
    await advance(mock, STEP_MS * 3);
    expect((await messageOf(mock, id)).status).toBe("bounced");
  });

  it("offers the rules to the library too, and a reset brings back the config's", async () => {
    const mock = await aMockForThisTest({ lifecycle: { stepMs: STEP_MS }, outcomeRules: [{ outcome: "opened", match: { to: "*@opens.example.com" } }] });
    const rule = await mock.outcomes.add({ outcome: "bounced", times: 2 });
    expect(rule.times).toBe(2);
    await expect(mock.outcomes.add({ outcome: "nope" } as never)).rejects.toThrow(/outcome/);
    const ids = [await send(mock), await send(mock), await send(mock)];
    await mock.clock.advance(STEP_MS * 2);
    const statuses = await Promise.all(ids.map(async (id) => (await mock.outbox.get(id))?.status));
    expect(statuses).toEqual(["bounced", "bounced", "delivered"]);

    await mock.outcomes.clear();
    expect(await mock.outcomes.list()).toEqual([]);
    await mock.reset();
    expect((await mock.outcomes.list()).map((kept) => kept.outcome)).toEqual(["opened"]);
  });
});

describe("events by hand: POST /_mock/messages/{id}/events", () => {
  const mock = sharedMock({ lifecycle: { stepMs: STEP_MS } });

  it("appends the event now and answers 201 with it", async () => {
    const id = await send(mock());
    const response = await admin(mock(), "post", `/_mock/messages/${id}/events`, { type: "message.bounced" });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({ type: "message.bounced", at: expect.any(String) as string, bounce_type: "hard" });
    expect(await messageOf(mock(), id)).toMatchObject({ status: "bounced", events: [response.body] });
  });

  it("answers 404 for an unknown message", async () => {
    const response = await admin(mock(), "post", "/_mock/messages/msg_nope/events", { type: "message.delivered" });
    expect(response.status).toBe(404);
    expect(response.body).toMatchObject({ error: { code: "not_found" } });
  });

  it("answers 400 for an unknown type", async () => {
    const id = await send(mock());
    const response = await admin(mock(), "post", `/_mock/messages/${id}/events`, { type: "message.exploded" });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ success: false, error: { code: "invalid_request" } });
  });
});

describe("a message.clicked event's link", () => {
  it("keeps a long first link once, in links: 101 clicks by hand each carry at most lifecycle.max_link_bytes of it", async () => {
    const mock = await aMockForThisTest({ lifecycle: { stepMs: STEP_MS, maxLinkBytes: 1024 } });
    const link = `https://app.example.com/login?token=${"t".repeat(40_000)}`;
    const id = await send(mock, { data: { name: "Ada", company: "Acme", login_url: link } });
    const capturedBytes = (await admin(mock, "get", `/_mock/messages/${id}`)).text.length;

    const statuses: number[] = [];
    for (let click = 0; click < 101; click += 1) {
      statuses.push((await admin(mock, "post", `/_mock/messages/${id}/events`, { type: "message.clicked" })).status);
    }

    expect(statuses.filter((status) => status === 201)).toHaveLength(100);
    expect(statuses.at(-1)).toBe(400);
    const response = await admin(mock, "get", `/_mock/messages/${id}`);
    const message = response.body as CapturedMessage;
    expect(message.links[0]).toBe(link);
    const [first] = message.events;
    expect(first?.link?.startsWith(link.slice(0, 900))).toBe(true);
    expect(first?.link).toMatch(/…\[\d+ more characters, the whole link is links\[0\]\]$/);
    expect(Buffer.byteLength(JSON.stringify(first?.link))).toBeLessThanOrEqual(1024 + 2);
    // Each event adds its type, time and cut link: ~1.1 KB, where a copy of the link was 40 KB.
    expect(response.text.length - capturedBytes).toBeLessThan(100 * 1200);
  });

  it("keeps a link within the bound whole", async () => {
    const mock = await aMockForThisTest({ lifecycle: { stepMs: STEP_MS, maxLinkBytes: 1024 } });
    const link = `https://app.example.com/login?token=${"t".repeat(1024 - 40)}`;
    const id = await send(mock, { data: { name: "Ada", company: "Acme", login_url: link } });

    const response = await admin(mock, "post", `/_mock/messages/${id}/events`, { type: "message.clicked" });

    expect(response.body).toEqual({ type: "message.clicked", at: expect.any(String) as string, link });
  });
});

describe("the status filter", () => {
  const mock = sharedMock({ lifecycle: { stepMs: STEP_MS } });

  it("lists the messages in a status", async () => {
    const bounced = await send(mock(), { to: "bounced@outcome.sendmock.test" });
    await send(mock(), { to: "delivered@outcome.sendmock.test" });
    await advance(mock(), STEP_MS * 2);
    const response = await admin(mock(), "get", "/_mock/messages?status=bounced");
    expect((response.body as { messages: CapturedMessage[] }).messages.map((message) => message.id)).toEqual([bounced]);
    expect((response.body as { total: number }).total).toBe(1);
    expect((await admin(mock(), "get", "/_mock/messages?status=lost")).status).toBe(400);
  });

  it("lets waitFor wait for a message to reach a status", async () => {
    await send(mock(), { to: "bounced@outcome.sendmock.test" });
    const waiting = mock().outbox.waitFor({ to: "bounced@outcome.sendmock.test", status: "bounced" }, { timeoutMs: 5000 });
    await mock().clock.advance(STEP_MS * 2);
    expect((await waiting).status).toBe("bounced");
  });

  it("answers a wait_ms list as soon as a message reaches the status", async () => {
    const running = await aRunningMockForThisTest({ lifecycle: { stepMs: STEP_MS } });
    const id = await send(running, { to: "complained@outcome.sendmock.test" });
    const waiting = fetch(`${running.url}/_mock/messages?status=complained&wait_ms=5000`);
    await running.clock.advance(STEP_MS * 3);
    const found = (await (await waiting).json()) as { messages: CapturedMessage[] };
    expect(found.messages.map((message) => message.id)).toEqual([id]);
  });
});

describe("the clock", () => {
  it("shows the time and the offset, moves forward, and goes back on reset", async () => {
    const mock = await aMockForThisTest();
    const before = (await admin(mock, "get", "/_mock/clock")).body as { now: string; offset_ms: number };
    expect(before.offset_ms).toBe(0);
    expect(Math.abs(Date.parse(before.now) - Date.now())).toBeLessThan(5000);

    const moved = (await advance(mock, 3_600_000)).body as { now: string; offset_ms: number };
    expect(moved.offset_ms).toBe(3_600_000);
    expect(Date.parse(moved.now) - Date.now()).toBeGreaterThan(3_590_000);
    expect(mock.clock.offsetMs()).toBe(3_600_000);

    await admin(mock, "post", "/_mock/reset");
    expect(((await admin(mock, "get", "/_mock/clock")).body as { offset_ms: number }).offset_ms).toBe(0);
  });

  it.each([[-1], [1.5], [31_536_000_001], ["3000"]])("refuses advance_ms %j with 400", async (advanceMs) => {
    const mock = await aMockForThisTest();
    const response = await admin(mock, "post", "/_mock/clock", { advance_ms: advanceMs });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ error: { code: "invalid_request" } });
    expect(mock.clock.offsetMs()).toBe(0);
  });

  it("refuses a bad advance from the library too", async () => {
    const mock = await aMockForThisTest();
    await expect(mock.clock.advance(-5)).rejects.toThrow(/advance_ms/);
    await expect(mock.clock.advance(Number.NaN)).rejects.toThrow(/advance_ms/);
  });

  it("dates captured messages on the mock's clock", async () => {
    const mock = await aMockForThisTest();
    await mock.clock.advance(86_400_000);
    const id = await send(mock);
    expect(Date.parse((await messageOf(mock, id)).created_at) - Date.now()).toBeGreaterThan(86_000_000);
  });

  it("refills the rate limit when the clock is advanced", async () => {
    const mock = await aMockForThisTest({ rateLimit: { requests: 1, perSeconds: 60 } });
    expect((await request(mock.app).post("/send").set(bearer()).send(aSendRequest())).status).toBe(200);
    expect((await request(mock.app).post("/send").set(bearer()).send(aSendRequest())).status).toBe(429);
    await mock.clock.advance(60_000);
    expect((await request(mock.app).post("/send").set(bearer()).send(aSendRequest())).status).toBe(200);
  });
});

describe("pending steps", () => {
  it("drops them on reset: a message sent before it does not move after it", async () => {
    const { mock, scope } = await aMockAndScopeForThisTest({ lifecycle: { stepMs: STEP_MS } });
    const before = await send(mock);
    await mock.reset();
    // The same id back in the outbox: a step left pending would move it.
    await scope.outbox.add(aCaptured(before));
    await mock.clock.advance(STEP_MS * 5);
    expect((await mock.outbox.get(before))?.events).toEqual([]);
  });

  it("drops those of messages cleared from the outbox", async () => {
    const mock = await aMockForThisTest({ lifecycle: { stepMs: STEP_MS } });
    await send(mock);
    await request(mock.app).delete("/_mock/messages");
    const again = await send(mock);
    await mock.clock.advance(STEP_MS * 2);
    expect((await mock.outbox.get(again))?.status).toBe("delivered");
  });

  it("drops those of a message deleted by id, and only those", async () => {
    const { mock, scope } = await aMockAndScopeForThisTest({ lifecycle: { stepMs: STEP_MS } });
    const deleted = await send(mock);
    const kept = await send(mock);
    expect((await request(mock.app).delete(`/_mock/messages/${deleted}`)).status).toBe(204);
    // The same id back in the outbox: a step left pending would move it.
    await scope.outbox.add(aCaptured(deleted));
    await mock.clock.advance(STEP_MS * 2);
    expect((await mock.outbox.get(deleted))?.events).toEqual([]);
    expect((await mock.outbox.get(kept))?.status).toBe("delivered");
  });

  it("drops those of messages dropped for room past capacity", async () => {
    const mock = await aMockForThisTest({ lifecycle: { stepMs: STEP_MS }, capacity: 2 });
    for (let index = 0; index < 5; index += 1) await send(mock);
    await mock.clock.advance(STEP_MS * 2);
    const { messages } = await mock.outbox.list();
    expect(messages.map((message) => message.status)).toEqual(["delivered", "delivered"]);
  });
});

/** A message as captured, before anything happened to it. */
function aCaptured(id: string): CapturedMessage {
  return {
    id,
    status: "queued",
    events: [],
    created_at: new Date().toISOString(),
    to: "ada@example.com",
    cc: [],
    bcc: [],
    reply_to: null,
    template_id: "welcome",
    subject: "Welcome",
    html: null,
    text: "Welcome",
    data: {},
    warnings: [],
    links: [],
    api_key_hint: "0001",
  };
}

describe("GET /_mock/events", () => {
  it("streams an event event for each lifecycle event", async () => {
    const mock = await aRunningMockForThisTest({ lifecycle: { stepMs: STEP_MS } });
    const controller = new AbortController();
    const stream = await fetch(`${mock.url}/_mock/events`, { signal: controller.signal });
    const reader = (stream.body as ReadableStream<Uint8Array>).pipeThrough(new TextDecoderStream()).getReader();
    const id = await send(mock, { to: "bounced@outcome.sendmock.test" });
    await mock.clock.advance(STEP_MS * 2);
    let seen = "";
    while ((seen.match(/event: event\n/g) ?? []).length < 2) {
      const { value, done } = await reader.read();
      if (done) break;
      seen += value;
    }
    controller.abort();
    const payloads = [...seen.matchAll(/event: event\ndata: (.*)\n/g)].map((match) => JSON.parse(match[1] ?? "{}") as Record<string, unknown>);
    expect(payloads).toEqual([
      { message_id: id, status: "sent", event: { type: "message.sent", at: expect.any(String) as string } },
      { message_id: id, status: "bounced", event: { type: "message.bounced", at: expect.any(String) as string, bounce_type: "hard" } },
    ]);
  });
});
