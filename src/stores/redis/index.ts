// The Redis store, loaded on demand by src/stores/index.ts.

export { openSandboxChannels, openStoreChannel } from "./channel.js";
export { createRedisClockOffset } from "./clock.js";
export { connectRedis } from "./connection.js";
export { createRedisDueWork } from "./due-work.js";
export { createRedisDueWatch } from "./due-watch.js";
export { createRedisFaultPlan } from "./faults.js";
export { createRedisJournal } from "./journal.js";
export { createRedisOutbox } from "./outbox.js";
export { createRedisRateLimiter } from "./rate-limiter.js";
export { createRedisRuleBook } from "./rule-book.js";
export { createRedisSettingsStore } from "./settings.js";
export { createRedisDeliveryLog, createRedisWebhookStore } from "./webhooks.js";
export { createRedisIdempotencyStore } from "./idempotency.js";
export { startReplicaLease } from "./replica-lease.js";
export { sandboxKeyPrefix, withKeyPrefix } from "./key-prefix.js";
export { createRedisSharedBounds } from "./shared-bounds.js";
export { createRedisSandboxRegistry } from "./sandboxes.js";
