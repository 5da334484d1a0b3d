// Events by hand, a clicked event's link, the status filter, the clock, pending steps, and the lifecycle's events on GET /_mock/events.

import request from "supertest";
import { describe, expect, it } from "vitest";
import type { CapturedMessage } from "../../src/index.js";
import { aMockAndScopeForThisTest, aMockForThisTest, aRunningMockForThisTest, aSendRequest, bearer, sharedMock } from "../support/helpers.js";
import { admin, advance, messageOf, send, STEP_MS } from "../support/lifecycle-calls.js";

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
