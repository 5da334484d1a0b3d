// The state of a mock (run-time settings, the sandboxes' names, and each sandbox's outbox, journal, fault and outcome rules, rate limits,
// clock offset, due work, webhooks and their deliveries) in memory, or in Redis to be shared by replicas: the rest of
// sendmock sees only the interfaces.

import type { ResolvedConfig } from "../config/resolve.js";
import { createClock, createLocalClockOffset, type Clock, type ClockOffsetStore } from "../domain/clock.js";
import type { FaultPlan } from "../domain/faults.js";
import { OUTCOME_RULES, type OutcomeBook } from "../domain/outcomes.js";
import type { DueWorkStore, WatchDue } from "../domain/scheduler.js";
import type { IdempotencyStore } from "../domain/idempotency.js";
import type { Journal } from "../domain/journal.js";
import type { Outbox } from "../domain/outbox.js";
import type { RateLimiter } from "../domain/rate-limiter.js";
import type { SettingsStore } from "../domain/settings.js";
import type { DeliveryLog, WebhookStore } from "../domain/webhooks.js";
import { DEFAULT_SANDBOX, type SandboxRegistry } from "../domain/sandboxes.js";
import type { SharedBounds } from "./shared-bounds.js";
import { createMemorySharedBounds } from "./memory/shared-bound.js";
import {
  createMemoryDeliveryLog,
  createMemoryDueWork,
  createMemoryFaultPlan,
  createMemoryIdempotencyStore,
  createMemoryJournal,
  createMemoryOutbox,
  createMemoryRateLimiter,
  createMemoryRuleBook,
  createMemorySandboxRegistry,
  createMemorySettingsStore,
  createMemoryWebhookStore,
} from "./memory/index.js";

/** The state of one sandbox (docs/sandboxes.md): what a send in it, and a /_mock call scoped to it, read and change. */
export interface ScopeStores {
  outbox: Outbox;
  journal: Journal;
  faults: FaultPlan;
  outcomes: OutcomeBook;
  limiter: RateLimiter;
  /** Claims and kept responses of `Idempotency-Key`s. */
  idempotency: IdempotencyStore;
  clockOffset: ClockOffsetStore;
  /** The sandbox's clock, on `clockOffset`. */
  clock: Clock;
  dueWork: DueWorkStore;
  /** Webhook attempts waiting for their time, apart from `dueWork` so that neither waits behind the other. */
  webhookDueWork: DueWorkStore;
  webhooks: WebhookStore;
  /** Webhook delivery attempts. */
  deliveries: DeliveryLog;
  /** Wakes the schedulers of `dueWork` and `webhookDueWork` when work another replica scheduled or left falls due; absent when the stores are this mock's own. */
  watchDue?: { lifecycle: WatchDue; webhooks: WatchDue };
  /** Lets go of what this process holds for the sandbox (its channel on Redis); its data stays. */
  release(): Promise<void>;
}

export interface Stores {
  /** The run-time settings: one for every sandbox. */
  settings: SettingsStore;
  /** The names of the sandboxes in use, the default one aside. */
  sandboxes: SandboxRegistry;
  /** capacity and max_bytes' shares, held by every sandbox's outbox and journal together. */
  bounds: SharedBounds;
  /** Whether other replicas share this state: they may schedule work this one has to pick up. */
  shared: boolean;
  /** The stores of the sandbox `name` (the default sandbox's are the ones a mock without sandboxes had); opened once per name by the caller. */
  openScope(name: string): Promise<ScopeStores>;
  /** Releases connections; the data stays where it is. */
  close(): Promise<void>;
}

/**
 * How `max_bytes` is shared. The journal's entries are small (values are cut to excerpts): an
 * eighth holds the default capacity of them. Webhook payloads built for delivery (kept so that an
 * event's attempts to many webhooks build it once) get a sixteenth, and the messages the rest.
 */
export function sharesOfMaxBytes(maxBytes: number): { messages: number; journal: number; webhookPayloads: number } {
  const journal = Math.floor(maxBytes / 8);
  const webhookPayloads = Math.floor(maxBytes / 16);
  return { messages: maxBytes - journal - webhookPayloads, journal, webhookPayloads };
}

/** How often a replica on a shared store looks for due work it was not told about: another replica's, or one left by a replica that stopped. */
const SHARED_DUE_WORK_LOOK_MS = 1000;

export async function openStores(config: ResolvedConfig): Promise<Stores> {
  const { messages: messageBytes, journal: journalBytes } = sharesOfMaxBytes(config.maxBytes);
  const outboxLimits = { capacity: config.capacity, maxBytes: messageBytes, maxPageBytes: config.maxPageBytes };
  const journalLimits = { capacity: config.capacity, maxBytes: journalBytes, maxPageBytes: config.maxPageBytes };
  const boundLimits = { messages: { capacity: config.capacity, maxBytes: messageBytes }, journal: { capacity: config.capacity, maxBytes: journalBytes } };
  const faultOptions = { initialRules: config.faults, seed: config.seed, maxRules: config.maxRules };
  const outcomeOptions = { initialRules: config.outcomeRules, seed: config.seed, maxRules: config.maxRules };
  const idempotencyLimits = { ttlMs: config.idempotencyTtlS * 1000, maxKeys: config.maxIdempotencyKeys };
  // The config's webhooks are added without a sandbox: the default sandbox's, heard in every sandbox.
  const startUpWebhooksOf = (name: string) => (name === DEFAULT_SANDBOX ? config.webhooks : []);
  const startUpSettings = { responseShape: config.responseShape, strictData: config.strictData, rateLimit: config.rateLimit };
  if (config.store.kind === "memory") {
    const bounds = createMemorySharedBounds(boundLimits);
    return {
      settings: createMemorySettingsStore(startUpSettings),
      sandboxes: createMemorySandboxRegistry(),
      bounds,
      shared: false,
      openScope(name) {
        const clockOffset = createLocalClockOffset();
        const clock = createClock(clockOffset);
        return Promise.resolve({
          outbox: createMemoryOutbox({ ...outboxLimits, bound: bounds.messageBound }),
          journal: createMemoryJournal(journalLimits, bounds.journalBound),
          faults: createMemoryFaultPlan(faultOptions),
          outcomes: createMemoryRuleBook(OUTCOME_RULES, outcomeOptions),
          limiter: createMemoryRateLimiter({ nowMs: () => clock.nowMs(), maxBuckets: config.maxRateLimitBuckets }),
          idempotency: createMemoryIdempotencyStore(idempotencyLimits, () => clock.nowMs()),
          clockOffset,
          clock,
          dueWork: createMemoryDueWork(),
          webhookDueWork: createMemoryDueWork(),
          webhooks: createMemoryWebhookStore(startUpWebhooksOf(name)),
          deliveries: createMemoryDeliveryLog(config.maxWebhookDeliveries),
          release: () => Promise.resolve(),
        });
      },
      close: () => Promise.resolve(),
    };
  }
  // Loaded only for the redis store: a plain mock has no use for the client.
  const redis = await import("./redis/index.js");
  const connection = await redis.connectRedis({ url: config.store.url, keyPrefix: config.store.keyPrefix, commandTimeoutMs: config.redisTimeoutMs });
  // What this replica holds (due work it runs, keys it is responding to) is the others' once it is gone.
  const lease = await redis.startReplicaLease(connection, config.replicaLeaseMs).catch(async (error: unknown) => {
    await connection.close();
    throw error;
  });
  // The channels of the environment and of every named sandbox, closed with the store.
  const channels: { close(): Promise<void> }[] = [];
  try {
    const settingsChannel = await redis.openStoreChannel(connection);
    channels.push(settingsChannel);
    const sandboxChannels = await redis.openSandboxChannels(connection);
    channels.push(sandboxChannels);
    const settings = await redis.createRedisSettingsStore(connection, settingsChannel, startUpSettings);
    const bounds = redis.createRedisSharedBounds(connection, boundLimits);
    const dueWatch = redis.createRedisDueWatch(connection, SHARED_DUE_WORK_LOOK_MS);
    const openScope = async (name: string): Promise<ScopeStores> => {
      // The default sandbox keeps the keys a mock without sandboxes had; another, the same keys under a prefix of its own.
      const scoped = name === DEFAULT_SANDBOX ? connection : redis.withKeyPrefix(connection, redis.sandboxKeyPrefix(name));
      const channel = name === DEFAULT_SANDBOX ? settingsChannel : sandboxChannels.channelOf(scoped);
      const clockOffset = await redis.createRedisClockOffset(scoped, channel);
      const clock = createClock(clockOffset);
      const bound = bounds.forSandbox(name);
      const dueWork = redis.createRedisDueWork(scoped, lease);
      const webhookDueWork = redis.createRedisDueWork(scoped, lease, "webhooks:due");
      const nowMs = (): number => clock.nowMs();
      return {
        outbox: redis.createRedisOutbox(scoped, channel, outboxLimits, bound.messages),
        journal: redis.createRedisJournal(scoped, channel, journalLimits, bound.journal),
        faults: await redis.createRedisFaultPlan(scoped, faultOptions),
        outcomes: await redis.createRedisRuleBook(scoped, OUTCOME_RULES, outcomeOptions),
        limiter: redis.createRedisRateLimiter(scoped, () => clockOffset.current(), config.maxRateLimitBuckets),
        idempotency: redis.createRedisIdempotencyStore(scoped, idempotencyLimits, () => clock.nowMs(), lease),
        clockOffset,
        clock,
        dueWork,
        webhookDueWork,
        watchDue: { lifecycle: dueWatch.of(dueWork, nowMs), webhooks: dueWatch.of(webhookDueWork, nowMs) },
        webhooks: await redis.createRedisWebhookStore(scoped, startUpWebhooksOf(name)),
        deliveries: redis.createRedisDeliveryLog(scoped, channel, config.maxWebhookDeliveries),
        async release() {
          // The default sandbox's channel is the settings': it lives as long as the store.
          if (channel !== settingsChannel) await channel.close();
        },
      };
    };
    return {
      settings,
      sandboxes: redis.createRedisSandboxRegistry(connection, settingsChannel),
      bounds,
      shared: true,
      openScope,
      async close() {
        dueWatch.stop();
        // First: the others take over at once what this replica still held, instead of a lease later.
        await lease.release().catch(() => undefined);
        await Promise.all(channels.map((channel) => channel.close()));
        await connection.close();
      },
    };
  } catch (error) {
    await lease.release().catch(() => undefined);
    await connection.close();
    throw error;
  }
}
