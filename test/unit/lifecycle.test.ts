// The lifecycle as plain domain code: outcomes from recipients, rules and the default, and no
// pending step left behind by messages dropped for room or cleared.

import { describe, expect, it } from "vitest";
import { createClock, createLocalClockOffset } from "../../src/domain/clock.js";
import { createLifecycle, LIFECYCLE_STEP, OUTCOME_STEPS, STATUS_AFTER } from "../../src/domain/lifecycle.js";
import { OUTCOME_RULES, outcomeFromRecipient } from "../../src/domain/outcomes.js";
import { createScheduler, type DueHandler } from "../../src/domain/scheduler.js";
import { createSendService } from "../../src/domain/send.js";
import { loadTemplateCatalog } from "../../src/domain/templates.js";
import { createMemoryDueWork, createMemoryOutbox, createMemoryRuleBook } from "../../src/stores/memory/index.js";
import { MESSAGE_EVENT_TYPES, OUTCOMES } from "../../src/wire.js";
import { aSendRequest, SHIPPED_TEMPLATES } from "../support/helpers.js";

async function aLifecycle(options: { capacity?: number; maxBytes?: number } = {}) {
  const offset = createLocalClockOffset();
  const clock = createClock(offset);
  const dueWork = createMemoryDueWork();
  const outbox = createMemoryOutbox({ capacity: options.capacity ?? 100, ...(options.maxBytes !== undefined && { maxBytes: options.maxBytes }) });
  const handlers: Record<string, DueHandler> = {};
  const scheduler = createScheduler({ store: dueWork, clock, handlers });
  const outcomes = createMemoryRuleBook(OUTCOME_RULES, { initialRules: [], seed: 1 });
  const lifecycle = createLifecycle({
    settings: { stepMs: 1000, defaultOutcome: "delivered", enabled: true, maxEvents: 100, maxLinkBytes: 8192 },
    outbox,
    outcomes,
    scheduler,
    clock,
  });
  handlers[LIFECYCLE_STEP] = (payload, dueAtMs) => lifecycle.runStep(payload, dueAtMs);
  const catalog = await loadTemplateCatalog(SHIPPED_TEMPLATES, { watch: false });
  const sendService = createSendService({ catalog, outbox, lifecycle, now: () => clock.now() });
  return { dueWork, outbox, scheduler, lifecycle, sendService, outcomes };
}

describe("the lifecycle", () => {
  it("knows the state every event type leads to, and every outcome ends in the state of its last event", () => {
    expect(Object.keys(STATUS_AFTER).sort()).toEqual([...MESSAGE_EVENT_TYPES].sort());
    for (const outcome of OUTCOMES) expect(OUTCOME_STEPS[outcome][0]?.type).toBe("message.sent");
  });

  it("reads an outcome from OUTCOME@ and OUTCOME+label@outcome.sendmock.test, case-insensitively", () => {
    expect(outcomeFromRecipient("bounced@outcome.sendmock.test")).toBe("bounced");
    expect(outcomeFromRecipient("Soft_Bounced+order-7@Outcome.Sendmock.Test")).toBe("soft_bounced");
    expect(outcomeFromRecipient("bounce@outcome.sendmock.test")).toBe("unknown");
    expect(outcomeFromRecipient("bounced@example.com")).toBeUndefined();
  });

  it("keeps at most one pending step per message, and none for messages dropped for room", async () => {
    const { dueWork, sendService, scheduler } = await aLifecycle({ capacity: 3 });
    for (let index = 0; index < 50; index += 1) await sendService.send(aSendRequest(), { apiKeyHint: "0001", strictData: false });
    expect(await dueWork.size()).toBe(3);
    scheduler.stop();
  });

  it("keeps no pending step for messages that events by hand dropped for room", async () => {
    const { dueWork, outbox, sendService, lifecycle, scheduler } = await aLifecycle({ maxBytes: 30_000 });
    const options = { apiKeyHint: "0001", strictData: false };
    for (let index = 0; index < 3; index += 1) await sendService.send(aSendRequest(), options);
    const link = `https://app.example.com/login?token=${"t".repeat(2_000)}`;
    const clicked = await sendService.send(aSendRequest({ data: { name: "Ada", company: "Acme", login_url: link } }), options);
    expect(await dueWork.size()).toBe(4);

    for (let index = 0; index < 8; index += 1) await lifecycle.appendNow(clicked.id, "message.clicked");

    const stats = await outbox.stats();
    expect(stats.dropped).toBeGreaterThan(0);
    expect(await dueWork.size()).toBe(stats.count);
    scheduler.stop();
  });

  it("keeps no pending step once the pending steps are cleared", async () => {
    const { dueWork, sendService, lifecycle, scheduler } = await aLifecycle();
    await sendService.send(aSendRequest(), { apiKeyHint: "0001", strictData: false });
    await lifecycle.clearPending();
    expect(await dueWork.size()).toBe(0);
    scheduler.stop();
  });

  it("takes one use of the first matching rule per message", async () => {
    const { sendService, outcomes, scheduler } = await aLifecycle();
    await outcomes.add({ outcome: "bounced", times: 1 });
    await sendService.send(aSendRequest(), { apiKeyHint: "0001", strictData: false });
    expect(await outcomes.list()).toEqual([]);
    scheduler.stop();
  });
});
