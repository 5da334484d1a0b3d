// /_mock calls and sandboxes (docs/sandboxes.md): `?sandbox=NAME` or the header scopes a call to that sandbox;
// without one, reads see every sandbox (each item naming its own) and changes apply to all.

import request from "supertest";
import { describe, expect, it } from "vitest";
import { aListeningWait } from "../support/admin-calls.js";
import type { SendMock } from "../../src/mock.js";
import type { CapturedMessage, ClockView, JournalEntry } from "../../src/wire.js";
import { aMockAndScopeForThisTest, aMockForThisTest, aRunningMockForThisTest, aSendRequest, bearer } from "../support/helpers.js";
import { aWebhookReceiverForThisTest } from "../support/webhook-receiver.js";

async function sendIn(mock: SendMock, sandbox: string | undefined, to = "ada@example.com"): Promise<{ status: number; id: string }> {
  const response = await request(mock.app)
    .post("/send")
    .set({ ...bearer(), ...(sandbox === undefined ? {} : { "X-Sendmock-Sandbox": sandbox }) })
    .send(aSendRequest({ to }));
  return { status: response.status, id: (response.body as { message_id: string }).message_id };
}

async function messagesOf(mock: SendMock, query: Record<string, string> = {}, headers: Record<string, string> = {}): Promise<CapturedMessage[]> {
  const response = await request(mock.app).get("/_mock/messages").query(query).set(headers);
  expect(response.status).toBe(200);
  return (response.body as { messages: CapturedMessage[] }).messages;
}

describe("/_mock calls scoped to a sandbox", () => {
  it("GET /_mock/messages?sandbox=NAME lists that sandbox's messages only; the header scopes the same", async () => {
    const mock = await aMockForThisTest();
    const one = await sendIn(mock, "one");
    await sendIn(mock, "two");
    await sendIn(mock, undefined);

    expect((await messagesOf(mock, { sandbox: "one" })).map((message) => message.id)).toEqual([one.id]);
    expect((await messagesOf(mock, {}, { "X-Sendmock-Sandbox": "one" })).map((message) => message.id)).toEqual([one.id]);
  });

  it("without a sandbox, lists every sandbox's messages, newest first, each naming its sandbox (the default's none)", async () => {
    const mock = await aMockForThisTest();
    const first = await sendIn(mock, "one");
    const second = await sendIn(mock, undefined);
    const third = await sendIn(mock, "two");

    const all = await messagesOf(mock);
    expect(all.map((message) => [message.id, message.sandbox])).toEqual([
      [third.id, "two"],
      [second.id, undefined],
      [first.id, "one"],
    ]);
    const page = await request(mock.app).get("/_mock/messages").query({ limit: 2 });
    expect(page.body).toMatchObject({ total: 3, messages: [{ id: third.id }, { id: second.id }] });
  });

  it("GET /_mock/messages/{id}, its .eml and its html are found in the message's own sandbox and unscoped, not in another", async () => {
    const mock = await aMockForThisTest();
    const { id } = await sendIn(mock, "one");

    expect((await request(mock.app).get(`/_mock/messages/${id}`).query({ sandbox: "one" })).status).toBe(200);
    expect((await request(mock.app).get(`/_mock/messages/${id}`)).body).toMatchObject({ id, sandbox: "one" });
    expect((await request(mock.app).get(`/_mock/messages/${id}`).query({ sandbox: "two" })).status).toBe(404);
    const eml = await request(mock.app).get(`/_mock/messages/${id}/eml`).query({ sandbox: "one" });
    expect(eml.status).toBe(200);
    expect(eml.headers["content-type"]).toMatch(/^message\/rfc822/);
    expect((await request(mock.app).get(`/_mock/messages/${id}/eml`).query({ sandbox: "two" })).status).toBe(404);
    expect((await request(mock.app).get(`/_mock/messages/latest/html`).query({ sandbox: "one" })).status).toBe(200);
  });

  it("GET /_mock/requests?sandbox=NAME is that sandbox's journal; without one, every sandbox's", async () => {
    const mock = await aMockForThisTest();
    await sendIn(mock, "one");
    await sendIn(mock, undefined);

    const scoped = await request(mock.app).get("/_mock/requests").query({ sandbox: "one" });
    expect((scoped.body as { requests: JournalEntry[] }).requests.map((entry) => entry.sandbox)).toEqual(["one"]);
    const all = await request(mock.app).get("/_mock/requests");
    expect((all.body as { total: number }).total).toBe(2);
  });

  it("a fault rule added with ?sandbox=NAME fails that sandbox's sends alone, and is listed there alone", async () => {
    const mock = await aMockForThisTest();
    const added = await request(mock.app).post("/_mock/faults").query({ sandbox: "one" }).send({ fault: "server_error" });
    expect(added.status).toBe(201);

    expect((await sendIn(mock, "one")).status).toBe(500);
    expect((await sendIn(mock, "two")).status).toBe(200);
    expect((await request(mock.app).get("/_mock/faults").query({ sandbox: "one" })).body).toMatchObject({ faults: [{ fault: "server_error" }] });
    expect((await request(mock.app).get("/_mock/faults").query({ sandbox: "two" })).body).toEqual({ faults: [] });
  });

  it("an outcome rule and a webhook added with ?sandbox=NAME are that sandbox's", async () => {
    const mock = await aMockForThisTest();
    await request(mock.app).post("/_mock/outcomes").query({ sandbox: "one" }).send({ outcome: "bounced" });
    await request(mock.app).post("/_mock/webhooks").query({ sandbox: "one" }).send({ url: "http://127.0.0.1:9/hook" });

    expect((await request(mock.app).get("/_mock/outcomes").query({ sandbox: "one" })).body).toMatchObject({ outcomes: [{ outcome: "bounced" }] });
    expect((await request(mock.app).get("/_mock/outcomes").query({ sandbox: "two" })).body).toEqual({ outcomes: [] });
    expect((await request(mock.app).get("/_mock/webhooks").query({ sandbox: "one" })).body).toMatchObject({ webhooks: [{ url: "http://127.0.0.1:9/hook" }] });
    expect((await request(mock.app).get("/_mock/webhooks").query({ sandbox: "two" })).body).toEqual({ webhooks: [] });
  });

  it("POST /_mock/clock?sandbox=NAME moves that sandbox's clock only, and runs its lifecycle alone; without one, every clock moves", async () => {
    const mock = await aMockForThisTest();
    const inOne = await sendIn(mock, "one");
    const inTwo = await sendIn(mock, "two");

    const moved = await request(mock.app).post("/_mock/clock").query({ sandbox: "one" }).send({ advance_ms: 60_000 });
    expect((moved.body as ClockView).offset_ms).toBe(60_000);

    expect((await request(mock.app).get("/_mock/clock").query({ sandbox: "two" })).body).toMatchObject({ offset_ms: 0 });
    expect((await request(mock.app).get(`/_mock/messages/${inOne.id}`)).body).toMatchObject({ status: "delivered" });
    expect((await request(mock.app).get(`/_mock/messages/${inTwo.id}`)).body).toMatchObject({ status: "queued" });

    await request(mock.app).post("/_mock/clock").send({ advance_ms: 1000 });
    expect((await request(mock.app).get("/_mock/clock").query({ sandbox: "one" })).body).toMatchObject({ offset_ms: 61_000 });
    expect((await request(mock.app).get("/_mock/clock").query({ sandbox: "two" })).body).toMatchObject({ offset_ms: 1000 });
  });

  it("POST /_mock/reset?sandbox=NAME empties that sandbox alone and lets its name go; without one, every sandbox, and forgets their names", async () => {
    const mock = await aMockForThisTest({ maxSandboxes: 2 });
    await sendIn(mock, "one");
    await sendIn(mock, "two");

    expect((await request(mock.app).post("/_mock/reset").query({ sandbox: "one" })).status).toBe(204);
    expect(await messagesOf(mock, { sandbox: "one" })).toEqual([]);
    expect(await messagesOf(mock, { sandbox: "two" })).toHaveLength(1);
    // "one" counts no more: a new name fits under max_sandboxes.
    expect((await request(mock.app).get("/_mock/sandboxes")).body).toMatchObject({ sandboxes: ["two"] });
    expect((await sendIn(mock, "three")).status).toBe(200);
    expect((await sendIn(mock, "four")).status).toBe(400);

    expect((await request(mock.app).post("/_mock/reset")).status).toBe(204);
    expect(await messagesOf(mock)).toEqual([]);
    expect((await sendIn(mock, "four")).status).toBe(200);
  });

  it("refuses a sandbox name that breaks the rule, in the query or the header, with 400 invalid_request", async () => {
    const mock = await aMockForThisTest();
    expect((await request(mock.app).get("/_mock/messages").query({ sandbox: "no spaces" })).status).toBe(400);
    const byHeader = await request(mock.app).get("/_mock/messages").set("X-Sendmock-Sandbox", "a/b");
    expect(byHeader.status).toBe(400);
    expect(byHeader.body).toMatchObject({ error: { code: "invalid_request" } });
  });
});

describe("/_mock rules and webhooks without a sandbox", () => {
  it("a fault rule added without a sandbox applies in every sandbox, after the sandbox's own rules", async () => {
    const mock = await aMockForThisTest();
    await request(mock.app).post("/_mock/faults").send({ fault: "server_error" });
    await request(mock.app).post("/_mock/faults").query({ sandbox: "one" }).send({ fault: "rate_limit" });

    expect((await sendIn(mock, "one")).status).toBe(429);
    expect((await sendIn(mock, "two")).status).toBe(500);
    expect((await sendIn(mock, undefined)).status).toBe(500);
  });

  it("an outcome rule added without a sandbox decides every sandbox's messages its own rules leave", async () => {
    const mock = await aMockForThisTest();
    await request(mock.app).post("/_mock/outcomes").send({ outcome: "bounced" });
    await request(mock.app).post("/_mock/outcomes").query({ sandbox: "one" }).send({ outcome: "delivered" });
    const [inOne, inTwo] = [await sendIn(mock, "one"), await sendIn(mock, "two")];

    await request(mock.app).post("/_mock/clock").send({ advance_ms: 60_000 });

    expect((await request(mock.app).get(`/_mock/messages/${inOne.id}`)).body).toMatchObject({ status: "delivered" });
    expect((await request(mock.app).get(`/_mock/messages/${inTwo.id}`)).body).toMatchObject({ status: "bounced" });
  });

  it("lists every sandbox's rules and webhooks, each naming its sandbox; DELETE finds a rule wherever it is", async () => {
    const mock = await aMockForThisTest();
    await request(mock.app).post("/_mock/faults").send({ fault: "server_error" });
    const inOne = await request(mock.app).post("/_mock/faults").query({ sandbox: "one" }).send({ fault: "rate_limit" });
    await request(mock.app).post("/_mock/outcomes").query({ sandbox: "one" }).send({ outcome: "bounced" });
    await request(mock.app).post("/_mock/webhooks").query({ sandbox: "two" }).send({ url: "http://127.0.0.1:9/hook" });

    const faults = (await request(mock.app).get("/_mock/faults")).body as { faults: { fault: string; sandbox?: string }[] };
    expect(faults.faults.map((rule) => [rule.fault, rule.sandbox])).toEqual([
      ["server_error", undefined],
      ["rate_limit", "one"],
    ]);
    expect((await request(mock.app).get("/_mock/outcomes")).body).toMatchObject({ outcomes: [{ outcome: "bounced", sandbox: "one" }] });
    expect((await request(mock.app).get("/_mock/webhooks")).body).toMatchObject({ webhooks: [{ sandbox: "two" }] });

    expect((await request(mock.app).delete(`/_mock/faults/${(inOne.body as { id: string }).id}`)).status).toBe(204);
    expect((await request(mock.app).get("/_mock/faults").query({ sandbox: "one" })).body).toEqual({ faults: [] });
  });

  it("a webhook of one sandbox hears that sandbox's events alone; its deliveries are listed there and, naming it, without a sandbox", async () => {
    const mock = await aMockForThisTest();
    const receiver = await aWebhookReceiverForThisTest();
    await request(mock.app)
      .post("/_mock/webhooks")
      .query({ sandbox: "one" })
      .send({ url: receiver.url, events: ["message.sent"] });
    const inOne = await sendIn(mock, "one");
    await sendIn(mock, "two");

    await request(mock.app).post("/_mock/clock").send({ advance_ms: 1000 });

    await expect.poll(() => receiver.received.length).toBe(1);
    expect(receiver.received[0]?.payload.data).toMatchObject({ message_id: inOne.id });
    const scoped = (await request(mock.app).get("/_mock/webhooks/deliveries").query({ sandbox: "one" })).body as { deliveries: { message_id: string }[] };
    expect(scoped.deliveries.map((delivery) => delivery.message_id)).toEqual([inOne.id]);
    expect((await request(mock.app).get("/_mock/webhooks/deliveries")).body).toMatchObject({ deliveries: [{ message_id: inOne.id, sandbox: "one" }] });
    expect((await request(mock.app).get("/_mock/webhooks/deliveries").query({ sandbox: "two" })).body).toEqual({ deliveries: [] });
  });

  it("a webhook added without a sandbox hears every sandbox's events, naming the sandbox in a header; its deliveries are listed without a sandbox and in that sandbox", async () => {
    const mock = await aMockForThisTest();
    const receiver = await aWebhookReceiverForThisTest();
    await request(mock.app)
      .post("/_mock/webhooks")
      .send({ url: receiver.url, events: ["message.sent"] })
      .expect(201);
    const inOne = await sendIn(mock, "one");
    const inDefault = await sendIn(mock, undefined);

    await request(mock.app).post("/_mock/clock").send({ advance_ms: 1000 });

    await expect.poll(() => receiver.received.length).toBe(2);
    const sandboxOf = new Map(receiver.received.map((delivery) => [delivery.payload.data.message_id, delivery.headers["x-sendmock-sandbox"]]));
    expect(sandboxOf).toEqual(
      new Map([
        [inOne.id, "one"],
        [inDefault.id, undefined],
      ]),
    );
    const scoped = (await request(mock.app).get("/_mock/webhooks/deliveries").query({ sandbox: "one" })).body as { deliveries: { message_id: string }[] };
    expect(scoped.deliveries.map((delivery) => delivery.message_id)).toEqual([inOne.id]);
    const everywhere = (await request(mock.app).get("/_mock/webhooks/deliveries")).body as { deliveries: { message_id: string; sandbox?: string }[] };
    expect(everywhere.deliveries.map((delivery) => [delivery.message_id, delivery.sandbox]).sort()).toEqual(
      [
        [inOne.id, "one"],
        [inDefault.id, undefined],
      ].sort(),
    );
    expect((await request(mock.app).get("/_mock/webhooks").query({ sandbox: "one" })).body).toEqual({ webhooks: [] });
  });
});

/** The captured messages a /_mock/events stream tells, until `count` of them came, while `act` runs once the stream is open. */
async function messageEvents(url: string, count: number, act: () => Promise<void>): Promise<CapturedMessage[]> {
  const controller = new AbortController();
  const response = await fetch(url, { signal: controller.signal });
  const reader = response.body?.pipeThrough(new TextDecoderStream()).getReader();
  if (!reader) throw new Error("no body");
  const acting = act();
  const messages: CapturedMessage[] = [];
  let buffer = "";
  while (messages.length < count) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if (/^event: message$/m.test(block) && data !== undefined) messages.push(JSON.parse(data) as CapturedMessage);
    }
  }
  await acting;
  controller.abort();
  return messages;
}

describe("waiting without a sandbox", () => {
  it("GET /_mock/messages?wait_ms= without a sandbox resolves with a message captured in a sandbox first used during the wait", async () => {
    const { mock, scope } = await aMockAndScopeForThisTest();
    const { response: pending } = await aListeningWait(mock, scope, { to: "grace@example.com", wait_ms: 5000 });

    const sent = await sendIn(mock, "brand-new", "grace@example.com");

    expect((await pending).body).toMatchObject({ total: 1, messages: [{ id: sent.id, sandbox: "brand-new" }] });
  });
});

describe("/_mock/events and sandboxes", () => {
  it("a stream with ?sandbox=NAME tells that sandbox's captures alone; one without tells every sandbox's, a sandbox new since it opened too", async () => {
    const mock = await aRunningMockForThisTest();
    const send = (sandbox: string, to: string) =>
      fetch(`${mock.url}/send`, {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-Sendmock-Sandbox": sandbox, ...bearer() },
        body: JSON.stringify(aSendRequest({ to })),
      });

    const scoped = await messageEvents(`${mock.url}/_mock/events?sandbox=one`, 1, async () => {
      await send("two", "grace@example.com");
      await send("one", "ada@example.com");
    });
    expect(scoped.map((message) => [message.to, message.sandbox])).toEqual([["ada@example.com", "one"]]);

    const everywhere = await messageEvents(`${mock.url}/_mock/events`, 2, async () => {
      await send("three", "linus@example.com");
      await send("one", "alan@example.com");
    });
    expect(everywhere.map((message) => message.sandbox)).toEqual(["three", "one"]);
  });
});
