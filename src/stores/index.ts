// The state of a mock (outbox, journal, fault rules, rate limits, run-time settings) in memory,
// or in Redis to be shared by replicas: the rest of sendmock sees only the interfaces.

import type { ResolvedConfig } from "../config.js";
import type { FaultPlan } from "../domain/faults.js";
import type { Journal } from "../domain/journal.js";
import type { Outbox } from "../domain/outbox.js";
import type { RateLimiter } from "../domain/rate-limiter.js";
import type { SettingsStore } from "../domain/settings.js";
import { createMemoryFaultPlan, createMemoryJournal, createMemoryOutbox, createMemoryRateLimiter, createMemorySettingsStore } from "./memory/index.js";

export interface Stores {
  outbox: Outbox;
  journal: Journal;
  faults: FaultPlan;
  limiter: RateLimiter;
  settings: SettingsStore;
  /** Releases connections; the data stays where it is. */
  close(): Promise<void>;
}

export async function openStores(config: ResolvedConfig): Promise<Stores> {
  // The journal's entries are small (values are cut to excerpts): an eighth of max_bytes holds
  // the default capacity of them, and the messages get the rest.
  const journalBytes = Math.floor(config.maxBytes / 8);
  const outboxLimits = { capacity: config.capacity, maxBytes: config.maxBytes - journalBytes, maxPageBytes: config.maxPageBytes };
  const journalLimits = { capacity: config.capacity, maxBytes: journalBytes, maxPageBytes: config.maxPageBytes };
  const faultOptions = { initialRules: config.faults, seed: config.seed, maxRules: config.maxRules };
  const startUpSettings = { responseShape: config.responseShape, strictData: config.strictData, rateLimit: config.rateLimit };
  if (config.store.kind === "memory") {
    return {
      outbox: createMemoryOutbox(outboxLimits),
      journal: createMemoryJournal(journalLimits),
      faults: createMemoryFaultPlan(faultOptions),
      limiter: createMemoryRateLimiter(),
      settings: createMemorySettingsStore(startUpSettings),
      close: () => Promise.resolve(),
    };
  }
  // Loaded only for the redis store: a plain mock has no use for the client.
  const redis = await import("./redis/index.js");
  const connection = await redis.connectRedis({ url: config.store.url, keyPrefix: config.store.keyPrefix, commandTimeoutMs: config.redisTimeoutMs });
  try {
    const channel = await redis.openStoreChannel(connection);
    return {
      outbox: redis.createRedisOutbox(connection, channel, outboxLimits),
      journal: redis.createRedisJournal(connection, channel, journalLimits),
      faults: await redis.createRedisFaultPlan(connection, faultOptions),
      limiter: redis.createRedisRateLimiter(connection),
      settings: await redis.createRedisSettingsStore(connection, channel, startUpSettings),
      async close() {
        await channel.close();
        await connection.close();
      },
    };
  } catch (error) {
    await connection.close();
    throw error;
  }
}
