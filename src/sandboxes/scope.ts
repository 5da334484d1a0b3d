// One sandbox's scope: its stores and the services over them (scheduler, lifecycle, webhook delivering, clock, send service),
// built the same way for the default sandbox and for every named one.

import type { ResolvedConfig } from "../config/resolve.js";
import { withCapturedMessageCheck } from "../contract/captured-message.js";
import type { Contract } from "../contract/load.js";
import { webhookPayloadCheck } from "../contract/webhook-payload.js";
import { createClockControl, type ClockControl } from "../domain/clock.js";
import type { DeliveryPool } from "../domain/delivery-pool.js";
import { createFaultControl, type FaultControl, type FaultPlan, type RespondLimits } from "../domain/faults.js";
import type { IdempotencyStore } from "../domain/idempotency.js";
import type { Journal } from "../domain/journal.js";
import { createLifecycle, LIFECYCLE_STEP, type Lifecycle } from "../domain/lifecycle.js";
import type { Outbox } from "../domain/outbox.js";
import { createOutcomeControl, type OutcomeBook, type OutcomeControl } from "../domain/outcomes.js";
import { layeredFaultPlan, layeredOutcomeBook, layeredWebhookStore, type TrackedRules } from "../domain/layered-rules.js";
import type { RateLimiter } from "../domain/rate-limiter.js";
import { withGlobalRuleLimit } from "../domain/rule-limit.js";
import { DEFAULT_SANDBOX } from "../domain/sandboxes.js";
import { createScheduler, type DueHandler } from "../domain/scheduler.js";
import type { SendService } from "../domain/send.js";
import type { TemplateCatalog } from "../domain/templates.js";
import { createWebhookDelivering, type PayloadCache } from "../domain/webhook-delivery.js";
import { createWebhookControl, type WebhookControl, type WebhookStore } from "../domain/webhooks.js";
import { postWebhook } from "../http/webhook-client.js";
import { createApiSendService } from "../send/service.js";
import type { ScopeStores } from "../stores/index.js";
import { explainedWait, type WaitExplainer } from "./near-misses.js";

/** What every sandbox's scope is built from: the same for all of them. */
export interface ScopeParts {
  config: ResolvedConfig;
  /** admin.yaml: each capture is held to its CapturedMessage. */
  adminContract: Contract;
  /** send.yaml: each webhook payload is held to its webhooks. */
  sendContract: Contract;
  catalog: TemplateCatalog;
  /** Webhook payloads built for delivery, shared by every sandbox: max_bytes' share bounds them all. */
  payloadCache: PayloadCache;
  /** Where every sandbox's webhook attempts are made: webhook_concurrency bounds them all together. */
  webhookPool: DeliveryPool;
  /** The default sandbox's rules and webhooks, which apply in every other sandbox after its own; absent for the default sandbox itself. */
  everywhere?: { faults: FaultPlan & TrackedRules; outcomes: OutcomeBook & TrackedRules; webhooks: WebhookStore };
  /** Tells a wait that ran out with what came closest, in this sandbox and in the others. */
  explainWait: WaitExplainer;
  /** How many fault rules, outcome rules and webhooks every sandbox holds together: max_rules bounds their sum. */
  totals: { faults: () => Promise<number>; faultBytes: () => Promise<number>; outcomes: () => Promise<number>; webhooks: () => Promise<number> };
}

/** One sandbox's state and the controls over it: what a send in it and a /_mock call scoped to it use. */
export interface SandboxScope {
  readonly name: string;
  /** The outbox, whose deleted and cleared messages take their pending steps with them. */
  outbox: Outbox;
  journal: Journal;
  /** The rules POST /send decides by. */
  faultPlan: FaultPlan;
  /** The rules as the library and POST /_mock/faults change them. */
  faults: FaultControl;
  outcomes: OutcomeControl;
  webhooks: WebhookControl;
  clock: ClockControl;
  limiter: RateLimiter;
  idempotency: IdempotencyStore;
  lifecycle: Lifecycle;
  sendService: SendService;
  /** A send service capturing what a real service accepted (proxy mode): no local lifecycle. */
  relayService: SendService;
  /** Everything of the sandbox back to its start-up state. */
  reset(): Promise<void>;
  /** Starts the steps and attempts left by an earlier run of a shared store, or scheduled before a restart. */
  runLeftWork(): void;
  /** Stops its scheduler and webhook delivering. */
  stop(): void;
  /** Stops, and lets go of what this process holds for it (its channel on Redis): a forgotten sandbox's scope. */
  close(): Promise<void>;
}

export function buildSandboxScope(name: string, stores: ScopeStores, parts: ScopeParts): SandboxScope {
  const { config, everywhere } = parts;
  const { clock } = stores;
  const checkedOutbox = withCapturedMessageCheck(stores.outbox, parts.adminContract);
  // Filled once the lifecycle exists: the scheduler and the lifecycle need each other.
  const handlers: Record<string, DueHandler> = {};
  const scheduler = createScheduler({
    store: stores.dueWork,
    clock,
    handlers,
    // Shared due work may be scheduled by another replica, or left by one that stopped.
    ...(stores.watchDue !== undefined && { watch: stores.watchDue.lifecycle }),
    onError: (error, item) => config.log(`sendmock: due ${item.kind} ${item.id} failed: ${error instanceof Error ? error.message : String(error)}`),
  });
  // Each sandbox's events go to its own webhooks and to those added without a sandbox.
  const deliveredTo = everywhere === undefined ? stores.webhooks : layeredWebhookStore(stores.webhooks, everywhere.webhooks);
  // Each message names its sandbox; the default sandbox's name none, as before sandboxes.
  const sandbox = name === DEFAULT_SANDBOX ? undefined : name;
  const delivering = createWebhookDelivering({
    store: deliveredTo,
    log: stores.deliveries,
    dueWork: stores.webhookDueWork,
    clock,
    messages: checkedOutbox,
    post: postWebhook,
    timeoutMs: config.webhookTimeoutMs,
    retryMs: config.webhookRetryMs,
    pool: parts.webhookPool,
    maxPending: config.maxPendingWebhookAttempts,
    payloadCache: parts.payloadCache,
    ...(sandbox !== undefined && { sandbox }),
    payloadProblem: webhookPayloadCheck(parts.sendContract),
    reportProblem: config.log,
    ...(stores.watchDue !== undefined && { watch: stores.watchDue.webhooks }),
  });
  const lifecycle: Lifecycle = createLifecycle({
    settings: config.lifecycle,
    outbox: checkedOutbox,
    outcomes: everywhere === undefined ? stores.outcomes : layeredOutcomeBook(stores.outcomes, everywhere.outcomes),
    scheduler,
    clock,
    onRecorded: (message, event) => delivering.eventRecorded(message, event),
    alsoPending: delivering,
  });
  handlers[LIFECYCLE_STEP] = (payload, dueAtMs) => lifecycle.runStep(payload, dueAtMs);
  const webhooks = withGlobalRuleLimit(
    createWebhookControl({
      store: stores.webhooks,
      log: stores.deliveries,
      maxWebhooks: config.maxRules,
      replay: (id) => delivering.replay(id),
    }),
    { maxRules: config.maxRules, kind: "webhooks", total: parts.totals.webhooks },
  );
  // A cleared outbox, or a deleted message, takes its messages' pending steps with it.
  const outbox: Outbox = {
    ...checkedOutbox,
    async delete(id) {
      const deleted = await checkedOutbox.delete(id);
      if (deleted !== undefined) await lifecycle.forget([deleted]);
      return deleted;
    },
    async clear() {
      await checkedOutbox.clear();
      await lifecycle.clearPending();
    },
    waitFor: (filter = {}, options = {}) =>
      explainedWait(checkedOutbox.waitFor(filter, options), (timedOut) =>
        parts.explainWait({ sandbox: name, outbox: checkedOutbox, journal: stores.journal }, filter, timedOut),
      ),
  };
  const clockControl = createClockControl({
    clock,
    offset: stores.clockOffset,
    async runDue() {
      const advancedTo = clock.nowMs();
      // Every step first: the attempts of the events they record then run side by side.
      await scheduler.runDue();
      await delivering.runDue(advancedTo);
    },
  });
  const respondLimits: RespondLimits = { bodyBytes: config.bodyLimitBytes, headerBytes: config.maxHeaderBytes, depth: config.maxRespondDepth };
  const now = (): Date => clock.now();
  // Messages dropped for another sandbox's room take their pending steps and webhook attempts with them, as their own drops do.
  const stopHearingDrops = stores.outbox.onDropped((ids) => {
    lifecycle
      .forget(ids)
      .catch((error: unknown) => config.log(`sendmock: forgetting dropped messages failed: ${error instanceof Error ? error.message : String(error)}`));
  });
  const stop = (): void => {
    scheduler.stop();
    delivering.stop();
  };

  return {
    name,
    outbox,
    journal: stores.journal,
    faultPlan: everywhere === undefined ? stores.faults : layeredFaultPlan(stores.faults, everywhere.faults),
    // One control for the library and POST /_mock/faults: both hold a rule to admin.yaml's FaultRuleInput, as the route checks it, and the control checks what that schema cannot say.
    faults: withGlobalRuleLimit(createFaultControl(stores.faults, respondLimits), {
      maxRules: config.maxRules,
      kind: "fault rules",
      total: parts.totals.faults,
      bytes: { max: config.maxRuleBytes, total: parts.totals.faultBytes },
    }),
    outcomes: withGlobalRuleLimit(createOutcomeControl(stores.outcomes), { maxRules: config.maxRules, kind: "outcome rules", total: parts.totals.outcomes }),
    webhooks,
    clock: clockControl,
    limiter: stores.limiter,
    idempotency: stores.idempotency,
    lifecycle,
    sendService: createApiSendService({ catalog: parts.catalog, outbox, lifecycle, now, sandbox }),
    relayService: createApiSendService({ catalog: parts.catalog, outbox, now, sandbox }),
    async reset() {
      await Promise.all([
        outbox.clear(),
        stores.journal.clear(),
        stores.faults.reset(),
        stores.outcomes.reset(),
        stores.limiter.reset(),
        stores.idempotency.reset(),
        stores.clockOffset.reset(),
        stores.webhooks.reset(),
        stores.deliveries.clear(),
      ]);
    },
    runLeftWork() {
      void scheduler.runDue().catch(() => undefined);
      void delivering.runDue(clock.nowMs()).catch(() => undefined);
    },
    stop,
    async close() {
      stop();
      stopHearingDrops();
      await stores.release();
    },
  };
}
