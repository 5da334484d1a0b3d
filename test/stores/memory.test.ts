// The shared store contracts, run against the in-memory stores that a single mock uses.

import {
  createMemoryDeliveryLog,
  createMemoryDueWork,
  createMemoryFaultPlan,
  createMemoryIdempotencyStore,
  createMemoryJournal,
  createMemoryOutbox,
  createMemoryRateLimiter,
  createMemorySettingsStore,
  createMemoryWebhookStore,
} from "../../src/stores/memory/index.js";
import { describeDueWorkContract } from "./due-work-contract.js";
import { describeFaultPlanContract } from "./faults-contract.js";
import { describeIdempotencyContract } from "./idempotency-contract.js";
import { describeJournalContract } from "./journal-contract.js";
import { describeOutboxContract } from "./outbox-contract.js";
import { describeRateLimiterContract } from "./rate-limiter-contract.js";
import { describeSettingsContract } from "./settings-contract.js";
import { describeDeliveryLogContract, describeWebhookStoreContract } from "./webhooks-contract.js";

describeOutboxContract("memory outbox", (options) => Promise.resolve(createMemoryOutbox(options)));
describeJournalContract("memory journal", (options) => Promise.resolve(createMemoryJournal(options)));
describeFaultPlanContract("memory fault plan", (options) => Promise.resolve(createMemoryFaultPlan(options)));
describeRateLimiterContract("memory rate limiter", () => Promise.resolve(createMemoryRateLimiter()));
describeDueWorkContract("memory due work", () => Promise.resolve(createMemoryDueWork()));
describeSettingsContract("memory settings", (startUp) => Promise.resolve(createMemorySettingsStore(startUp)));
describeWebhookStoreContract("memory webhooks", (startUp) => Promise.resolve(createMemoryWebhookStore(startUp)));
describeDeliveryLogContract("memory webhook deliveries", (capacity) => Promise.resolve(createMemoryDeliveryLog(capacity)));
describeIdempotencyContract("memory idempotency keys", (limits, nowMs) => Promise.resolve(createMemoryIdempotencyStore(limits, nowMs)));
