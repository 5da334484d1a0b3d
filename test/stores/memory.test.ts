// The shared store contracts, run against the in-memory stores that a single mock uses.

import {
  createMemoryDeliveryLog,
  createMemoryDueWork,
  createMemoryFaultPlan,
  createMemoryIdempotencyStore,
  createMemoryJournal,
  createMemoryOutbox,
  createMemoryRateLimiter,
  createMemorySandboxRegistry,
  createMemorySettingsStore,
  createMemoryWebhookStore,
} from "../../src/stores/memory/index.js";
import v8 from "node:v8";
import vm from "node:vm";
import { describe, expect, it } from "vitest";
import { describeDueWorkContract } from "./due-work-contract.js";
import { describeFaultPlanContract } from "./faults-contract.js";
import { describeIdempotencyContract } from "./idempotency-contract.js";
import { describeJournalContract } from "./journal-contract.js";
import { describeOutboxCapacityContract } from "./outbox-capacity-contract.js";
import { aMessage, describeOutboxReadingContract, type MakeOutbox } from "./outbox-contract.js";
import { describeOutboxEventsContract } from "./outbox-events-contract.js";
import { describeRateLimiterContract } from "./rate-limiter-contract.js";
import { describeSettingsContract } from "./settings-contract.js";
import { describeDeliveryLogContract, describeWebhookStoreContract } from "./webhooks-contract.js";
import { describeClockOffsetContract } from "./clock-offset-contract.js";
import { describeSandboxRegistryContract } from "./sandbox-registry-contract.js";
import { createLocalClockOffset } from "../../src/domain/clock.js";
import { createMemorySharedBounds } from "../../src/stores/memory/shared-bound.js";
import { describeSharedBoundsContract } from "./shared-bounds-contract.js";

const aMemoryOutbox: MakeOutbox = (options) => Promise.resolve(createMemoryOutbox(options));
describeOutboxReadingContract("memory outbox", aMemoryOutbox);
describeOutboxCapacityContract("memory outbox", aMemoryOutbox);
describeOutboxEventsContract("memory outbox", aMemoryOutbox);
describeJournalContract("memory journal", (options) => Promise.resolve(createMemoryJournal(options)));
describeFaultPlanContract("memory fault plan", (options) => Promise.resolve(createMemoryFaultPlan(options)));
describeRateLimiterContract("memory rate limiter", (options) => Promise.resolve(createMemoryRateLimiter(options)));
describeDueWorkContract("memory due work", () => Promise.resolve(createMemoryDueWork()));
describeSettingsContract("memory settings", (startUp) => Promise.resolve(createMemorySettingsStore(startUp)));
describeWebhookStoreContract("memory webhooks", (startUp) => Promise.resolve(createMemoryWebhookStore(startUp)));
describeDeliveryLogContract("memory webhook deliveries", (capacity) => Promise.resolve(createMemoryDeliveryLog(capacity)));
describeIdempotencyContract("memory idempotency keys", (limits, nowMs) => Promise.resolve(createMemoryIdempotencyStore(limits, nowMs)));
describeSandboxRegistryContract("memory sandbox registry", () => {
  const registry = createMemorySandboxRegistry();
  return Promise.resolve([registry, registry]);
});
describeSharedBoundsContract("memory bounds shared by sandboxes", (limits) => {
  const bounds = createMemorySharedBounds(limits);
  return Promise.resolve({
    bounds,
    outboxOf: () => Promise.resolve(createMemoryOutbox({ capacity: limits.messages.capacity, bound: bounds.messageBound })),
    journalOf: () => Promise.resolve(createMemoryJournal({ capacity: limits.journal.capacity }, bounds.journalBound)),
  });
});
describeClockOffsetContract("memory clock offset", () => {
  const offset = createLocalClockOffset();
  return Promise.resolve([offset, offset]);
});

describe("memory outbox bytes", () => {
  it("grows by exactly the UTF-8 bytes its events add to the message's JSON as a list writes it", async () => {
    const outbox = createMemoryOutbox({ capacity: 10 });
    const message = aMessage({ subject: "Grüße — 注文 ✓" });
    await outbox.add(message);
    const jsonOf = async (): Promise<string> => (await outbox.listSerialized()).messages[0] ?? "";
    const [bytesBefore, jsonBefore] = [(await outbox.stats()).bytes, await jsonOf()];

    await outbox.recordEvent(message.id, { type: "message.sent", at: "2025-03-14T09:00:01.000Z" }, "sent");
    await outbox.recordEvent(message.id, { type: "message.bounced", at: "2025-03-14T09:00:02.000Z", bounce_type: "hard" }, "bounced");

    const jsonAfter = await jsonOf();
    expect(JSON.parse(jsonAfter)).toMatchObject({ status: "bounced", events: [{ type: "message.sent" }, { type: "message.bounced" }] });
    expect((await outbox.stats()).bytes - bytesBefore).toBe(Buffer.byteLength(jsonAfter) - Buffer.byteLength(jsonBefore));
  });

  it("keeps a message whose fields come in another order, and reads it back the same", async () => {
    const outbox = createMemoryOutbox({ capacity: 10 });
    const { id, status, events, ...others } = aMessage({ subject: "Grüße" });
    const reordered = { ...others, events, status, id };
    await outbox.add(reordered);
    await outbox.recordEvent(id, { type: "message.sent", at: "2025-03-14T09:00:01.000Z" }, "sent");

    const [json = ""] = (await outbox.listSerialized()).messages;
    expect(JSON.parse(json)).toEqual({ ...reordered, status: "sent", events: [{ type: "message.sent", at: "2025-03-14T09:00:01.000Z" }] });
    expect(await outbox.get(id)).toEqual(JSON.parse(json));
  });
});

describe("memory rate limiter buckets", () => {
  // The heap after a full collection: what the limiter keeps, not the garbage of its takes.
  v8.setFlagsFromString("--expose-gc");
  const collectGarbage = vm.runInNewContext("gc") as () => void;
  const heapKept = (): number => {
    collectGarbage();
    return process.memoryUsage().heapUsed;
  };
  const KEYS = 20_000;
  // One bucket took ~157 bytes: 20,000 kept would be ~3 MB.
  const BOUND_BYTES = 1024 * 1024;

  it("keeps no bucket once it has refilled, however many API keys come", async () => {
    let nowMs = 0;
    const limiter = createMemoryRateLimiter({ nowMs: () => nowMs, maxBuckets: 1_000_000 });
    const limit = { requests: 5, perSeconds: 1 };
    const before = heapKept();

    for (let key = 0; key < KEYS; key += 1) {
      await limiter.take(`key-${key}`, limit);
      // Each bucket is full again 200 ms after its one take.
      nowMs += 1000;
    }

    expect(heapKept() - before).toBeLessThan(BOUND_BYTES);
    expect((await limiter.take("key-0", limit)).remaining).toBe(4);
  });

  it("keeps at most maxBuckets buckets that have not refilled", async () => {
    const limiter = createMemoryRateLimiter({ nowMs: () => 0, maxBuckets: 100 });
    const limit = { requests: 1, perSeconds: 60 };
    const before = heapKept();

    for (let key = 0; key < KEYS; key += 1) await limiter.take(`key-${key}`, limit);

    expect(heapKept() - before).toBeLessThan(BOUND_BYTES);
    expect((await limiter.take(`key-${KEYS - 1}`, limit)).allowed).toBe(false);
  });
});
