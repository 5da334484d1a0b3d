// capacity and max_bytes bound every sandbox together (docs/sandboxes.md#bounds): past them the oldest of all goes, whichever
// sandbox holds it, and takes its pending work with it; a sandbox's stats count its own against the shared bound.

import request from "supertest";
import { describe, expect, it } from "vitest";
import type { SendMock } from "../../src/mock.js";
import type { ConfigView, WebhookDelivery } from "../../src/wire.js";
import { aMockForThisTest, aSendRequest, bearer } from "../support/helpers.js";
import { aWebhookReceiverForThisTest } from "../support/webhook-receiver.js";

async function sendIn(mock: SendMock, sandbox: string, to = "ada@example.com"): Promise<string> {
  const response = await request(mock.app)
    .post("/send")
    .set({ ...bearer(), "X-Sendmock-Sandbox": sandbox })
    .send(aSendRequest({ to }));
  expect(response.status).toBe(200);
  return (response.body as { message_id: string }).message_id;
}

const totalOf = async (mock: SendMock, path: string, sandbox?: string): Promise<number> =>
  (
    (
      await request(mock.app)
        .get(path)
        .query(sandbox === undefined ? {} : { sandbox })
    ).body as { total: number }
  ).total;

describe("bounds shared by every sandbox", () => {
  it("keeps at most capacity messages across all sandboxes: a busy sandbox's sends drop a quiet sandbox's older message", async () => {
    const mock = await aMockForThisTest({ capacity: 3 });
    const quiet = await sendIn(mock, "quiet");
    const busy = [await sendIn(mock, "busy"), await sendIn(mock, "busy"), await sendIn(mock, "busy")];

    expect(await totalOf(mock, "/_mock/messages", "quiet")).toBe(0);
    expect((await request(mock.app).get(`/_mock/messages/${quiet}`)).status).toBe(404);
    expect(await totalOf(mock, "/_mock/messages")).toBe(3);
    const busyIds = ((await request(mock.app).get("/_mock/messages").query({ sandbox: "busy" })).body as { messages: { id: string }[] }).messages;
    expect(busyIds.map((message) => message.id)).toEqual([...busy].reverse());
    expect((await request(mock.app).get("/_mock/config")).body as ConfigView).toMatchObject({ captured_messages: 3, dropped_messages: 1 });
  });

  it("reports a sandbox's own count and drops against the bound every sandbox shares", async () => {
    const mock = await aMockForThisTest({ capacity: 2 });
    await sendIn(mock, "quiet");
    await sendIn(mock, "busy");
    await sendIn(mock, "busy");

    expect(await (await mock.sandbox("quiet")).outbox.stats()).toMatchObject({ count: 0, capacity: 2, dropped: 1 });
    expect(await (await mock.sandbox("busy")).outbox.stats()).toMatchObject({ count: 2, capacity: 2, dropped: 0 });
  });

  it("keeps at most capacity journal entries across all sandboxes, the oldest of all going first", async () => {
    const mock = await aMockForThisTest({ capacity: 2 });
    await sendIn(mock, "quiet");
    await sendIn(mock, "busy");
    await sendIn(mock, "busy");

    expect(await totalOf(mock, "/_mock/requests")).toBe(2);
    expect(await totalOf(mock, "/_mock/requests", "quiet")).toBe(0);
    expect(await totalOf(mock, "/_mock/requests", "busy")).toBe(2);
  });

  it("gives a reset sandbox's room back: another sandbox then keeps capacity messages of its own", async () => {
    const mock = await aMockForThisTest({ capacity: 2 });
    await sendIn(mock, "one");
    await sendIn(mock, "one");
    await request(mock.app).post("/_mock/reset").query({ sandbox: "one" }).expect(204);

    await sendIn(mock, "two");
    await sendIn(mock, "two");

    expect(await totalOf(mock, "/_mock/messages", "two")).toBe(2);
    expect(await (await mock.sandbox("two")).outbox.stats()).toMatchObject({ dropped: 0 });
  });

  it("a message dropped for another sandbox's room takes its waiting webhook retry with it, leaving its place to the next event", async () => {
    const receiver = await aWebhookReceiverForThisTest();
    receiver.respondWith(500);
    const mock = await aMockForThisTest({ capacity: 2, lifecycle: { stepMs: 60_000 }, maxPendingWebhookAttempts: 1, webhookRetryMs: [600_000] });
    const quiet = await mock.sandbox("quiet");
    await quiet.webhooks.add({ url: receiver.url, events: ["message.sent"] });
    await sendIn(mock, "quiet");
    await quiet.clock.advance(60_000);
    expect(receiver.received).toHaveLength(1);

    // The first message, its retry waiting, is the oldest of all: the busy sandbox's sends drop it.
    await sendIn(mock, "busy");
    await sendIn(mock, "busy");
    const second = await sendIn(mock, "quiet");
    await quiet.clock.advance(60_000);

    const deliveries: WebhookDelivery[] = await quiet.webhooks.deliveries({ messageId: second });
    expect(deliveries).toMatchObject([{ status: 200, error: null }]);
    expect(receiver.received.map((delivery) => delivery.payload.data.message_id)).toContain(second);
  });
});

describe("max_rules across sandboxes", () => {
  // 24 sandboxes of 1000 respond rules of 90 KB each once held 2.4 GB, and listing them all killed the process.
  it.each([
    ["fault rules", "/_mock/faults", { fault: "server_error" }],
    ["outcome rules", "/_mock/outcomes", { outcome: "bounced" }],
    ["webhooks", "/_mock/webhooks", { url: "http://127.0.0.1:9/hooks" }],
  ])("bounds the %s of every sandbox together, refusing one more wherever it goes", async (kind, path, body) => {
    const mock = await aMockForThisTest({ maxRules: 5 });
    for (const sandbox of ["a", "a", "a", "b", "b"]) expect((await request(mock.app).post(path).query({ sandbox }).send(body)).status).toBe(201);

    for (const sandbox of ["c", "a", undefined]) {
      const refused = await request(mock.app)
        .post(path)
        .query(sandbox === undefined ? {} : { sandbox })
        .send(body);
      expect(refused.status).toBe(400);
      expect((refused.body as { error: { message: string } }).error.message).toBe(`Too many ${kind}: at most 5 (max_rules); remove some first`);
    }
    // One removed anywhere makes room anywhere.
    const listed = (await request(mock.app).get(path)).body as Record<string, { id: string }[]>;
    const [first] = Object.values(listed)[0] ?? [];
    expect((await request(mock.app).delete(`${path}/${first?.id ?? ""}`)).status).toBe(204);
    expect((await request(mock.app).post(path).query({ sandbox: "c" }).send(body)).status).toBe(201);
  });
});

describe("max_rule_bytes across sandboxes", () => {
  it("bounds what every sandbox's fault rules weigh together, refusing one more in words", async () => {
    const mock = await aMockForThisTest({ maxRuleBytes: 64 * 1024 });
    const rule = { fault: "respond", status: 200, body: "x".repeat(20_000) };
    for (const sandbox of ["a", "b", "c"]) expect((await request(mock.app).post("/_mock/faults").query({ sandbox }).send(rule)).status).toBe(201);

    const refused = await request(mock.app).post("/_mock/faults").query({ sandbox: "d" }).send(rule);
    expect(refused.status).toBe(400);
    expect((refused.body as { error: { code: string; message: string } }).error).toMatchObject({
      code: "invalid_request",
      message: expect.stringContaining("more than max_rule_bytes (65536)") as unknown,
    });
    // A small rule still fits.
    expect((await request(mock.app).post("/_mock/faults").query({ sandbox: "d" }).send({ fault: "server_error" })).status).toBe(201);
  });
});
