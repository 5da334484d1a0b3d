// One sandbox's scope: its stores and the services over them (scheduler, lifecycle, webhook delivering, clock, send service),
// built the same way for the default sandbox and for every named one.

import type { ResolvedConfig } from "../config/resolve.js";
import { withCapturedMessageCheck } from "../contract/captured-message.js";
import type { Contract } from "../contract/load.js";
import { webhookPayloadCheck } from "../contract/webhook-payload.js";
import { createClockControl, type ClockControl } from "../domain/clock.js";
import { createFaultControl, type FaultControl, type FaultPlan, type RespondLimits } from "../domain/faults.js";
import type { IdempotencyStore } from "../domain/idempotency.js";
import type { Journal } from "../domain/journal.js";
import { createLifecycle, LIFECYCLE_STEP, type Lifecycle } from "../domain/lifecycle.js";
import type { Outbox } from "../domain/outbox.js";
import { createOutcomeControl, type OutcomeBook, type OutcomeControl } from "../domain/outcomes.js";
import { layeredFaultPlan, layeredOutcomeBook, type TrackedRules } from "../domain/layered-rules.js";
import type { RateLimiter } from "../domain/rate-limiter.js";
import { DEFAULT_SANDBOX } from "../domain/sandboxes.js";
import { createScheduler, type DueHandler } from "../domain/scheduler.js";
import type { SendService } from "../domain/send.js";
import type { TemplateCatalog } from "../domain/templates.js";
import { createWebhookDelivering } from "../domain/webhook-delivery.js";
import { createWebhookControl, type WebhookControl } from "../domain/webhooks.js";
import { postWebhook } from "../http/webhook-client.js";
import { createApiSendService } from "../send/service.js";
import { sharesOfMaxBytes, type ScopeStores } from "../stores/index.js";

/** How often a replica on a shared store looks for due work it was not told about. */
const SHARED_DUE_WORK_POLL_MS = 1000;

/** What every sandbox's scope is built from: the same for all of them. */
export interface ScopeParts {
  config: ResolvedConfig;
  /** admin.yaml: each capture is held to its CapturedMessage. */
  adminContract: Contract;
  /** send.yaml: each webhook payload is held to its webhooks. */
  sendContract: Contract;
  catalog: TemplateCatalog;
  /** Whether other replicas share the stores: they may schedule work this one has to pick up. */
  shared: boolean;
  /** The default sandbox's rules, which apply in every other sandbox after its own; absent for the default sandbox itself. */
  everywhere?: { faults: FaultPlan & TrackedRules; outcomes: OutcomeBook & TrackedRules };
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
}

export function buildSandboxScope(name: string, stores: ScopeStores, parts: ScopeParts): SandboxScope {
  const { config, shared } = parts;
  const { clock } = stores;
  const checkedOutbox = withCapturedMessageCheck(stores.outbox, parts.adminContract);
  // Filled once the lifecycle exists: the scheduler and the lifecycle need each other.
  const handlers: Record<string, DueHandler> = {};
  const scheduler = createScheduler({
    store: stores.dueWork,
    clock,
    handlers,
    // Shared due work may be scheduled by another replica, or left by one that stopped.
    ...(shared && { maxSleepMs: SHARED_DUE_WORK_POLL_MS }),
    onError: (error, item) => config.log(`sendmock: due ${item.kind} ${item.id} failed: ${error instanceof Error ? error.message : String(error)}`),
  });
  const delivering = createWebhookDelivering({
    store: stores.webhooks,
    log: stores.deliveries,
    dueWork: stores.webhookDueWork,
    clock,
    messages: checkedOutbox,
    post: postWebhook,
    timeoutMs: config.webhookTimeoutMs,
    retryMs: config.webhookRetryMs,
    concurrency: config.webhookConcurrency,
    maxPending: config.maxPendingWebhookAttempts,
    payloadCacheBytes: sharesOfMaxBytes(config.maxBytes).webhookPayloads,
    payloadProblem: webhookPayloadCheck(parts.sendContract),
    reportProblem: config.log,
    ...(shared && { maxSleepMs: SHARED_DUE_WORK_POLL_MS }),
  });
  const { everywhere } = parts;
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
  const webhooks = createWebhookControl({
    store: stores.webhooks,
    log: stores.deliveries,
    maxWebhooks: config.maxRules,
    replay: (id) => delivering.replay(id),
  });
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
  // Each message names its sandbox; the default sandbox's name none, as before sandboxes.
  const sandbox = name === DEFAULT_SANDBOX ? undefined : name;

  return {
    name,
    outbox,
    journal: stores.journal,
    faultPlan: everywhere === undefined ? stores.faults : layeredFaultPlan(stores.faults, everywhere.faults),
    // One control for the library and POST /_mock/faults: both hold a rule to admin.yaml's FaultRuleInput, as the route checks it, and the control checks what that schema cannot say.
    faults: createFaultControl(stores.faults, respondLimits),
    outcomes: createOutcomeControl(stores.outcomes),
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
    stop() {
      scheduler.stop();
      delivering.stop();
    },
  };
}
