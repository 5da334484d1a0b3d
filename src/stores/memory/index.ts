// The in-memory stores: the state of one mock in its own process.

export { createMemoryDueWork } from "./due-work.js";
export { createMemoryFaultPlan } from "./faults.js";
export { createMemoryJournal } from "./journal.js";
export { createMemoryOutbox } from "./outbox.js";
export { createMemoryRateLimiter } from "./rate-limiter.js";
export { createMemoryRuleBook } from "./rule-book.js";
export { createMemorySettingsStore } from "./settings.js";
export { createMemoryDeliveryLog, createMemoryWebhookStore } from "./webhooks.js";
export { createMemoryIdempotencyStore } from "./idempotency.js";
export { createMemorySandboxRegistry } from "./sandboxes.js";
