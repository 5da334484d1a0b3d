// Each outcome's events on the mock's clock, and how an outcome is chosen: magic recipient, outcome rules, lifecycle's default.

import { describe, expect, it } from "vitest";
import type { CapturedMessage, MessageEvent, Outcome } from "../../src/index.js";
import { aMockForThisTest, sharedMock } from "../support/helpers.js";
import { admin, advance, messageOf, send, STEP_MS, typesOf } from "../support/lifecycle-calls.js";

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
