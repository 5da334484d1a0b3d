// The state of a mock (outbox, journal, fault rules, rate limits) in memory, or in Redis to be
// shared by replicas: the rest of sendmock sees only the interfaces.

import type { ResolvedConfig } from "./config.js";
import { createMemoryFaultPlan, type FaultPlan } from "./domain/faults.js";
import { createMemoryJournal, type Journal } from "./domain/journal.js";
import { createMemoryOutbox, type Outbox } from "./domain/outbox.js";
import { createMemoryRateLimiter, type RateLimiter } from "./domain/rate-limiter.js";

export interface Stores {
  outbox: Outbox;
  journal: Journal;
  faults: FaultPlan;
  limiter: RateLimiter;
  /** Releases connections; the data stays where it is. */
  close(): Promise<void>;
}

export async function openStores(config: ResolvedConfig): Promise<Stores> {
  const faultOptions = { initialRules: config.faults, seed: config.seed, maxRules: config.maxRules };
  if (config.store.kind === "memory") {
    return {
      outbox: createMemoryOutbox({ capacity: config.capacity }),
      journal: createMemoryJournal({ capacity: config.capacity }),
      faults: createMemoryFaultPlan(faultOptions),
      limiter: createMemoryRateLimiter(),
      close: () => Promise.resolve(),
    };
  }
  // Loaded only for the redis store: a plain mock has no use for the client.
  const redis = await import("./redis/index.js");
  const connection = await redis.connectRedis({ url: config.store.url, keyPrefix: config.store.keyPrefix, commandTimeoutMs: config.redisTimeoutMs });
  try {
    const channel = await redis.openStoreChannel(connection);
    return {
      outbox: redis.createRedisOutbox(connection, channel, { capacity: config.capacity }),
      journal: redis.createRedisJournal(connection, channel, { capacity: config.capacity }),
      faults: await redis.createRedisFaultPlan(connection, faultOptions),
      limiter: redis.createRedisRateLimiter(connection),
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
