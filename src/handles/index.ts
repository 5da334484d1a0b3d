// What a test holds of a mock: one small handle per resource, built over a scope (the state and
// controls of one mock), each call checked as the /_mock route of the same operation checks it.

import type { Contract } from "../contract/load.js";
import type { ClockControl } from "../domain/clock.js";
import type { FaultControl } from "../domain/faults.js";
import type { Journal } from "../domain/journal.js";
import type { OutcomeControl } from "../domain/outcomes.js";
import type { Outbox } from "../domain/outbox.js";
import type { SettingsStore } from "../domain/settings.js";
import type { TemplateCatalog } from "../domain/templates.js";
import type { WebhookControl } from "../domain/webhooks.js";
import { createClockHandle, type ClockHandle } from "./clock.js";
import { createJournalHandle, createOutboxHandle, type JournalHandle, type MessageChecker, type OutboxHandle } from "./outbox.js";
import { createFaultsHandle, createOutcomesHandle, createWebhooksHandle, type FaultsHandle, type OutcomesHandle, type WebhooksHandle } from "./rules.js";
import { createSettingsHandle, type SettingsHandle } from "./settings.js";
import { createTemplatesHandle, type TemplatesHandle } from "./templates.js";

/**
 * The state of one mock and the controls over it, as the /_mock routes reach them: what the
 * handles act on. The stores stay inside it; a handle hands out only the operations it documents.
 */
export interface HandleScope {
  outbox: Outbox;
  journal: Journal;
  faults: FaultControl;
  outcomes: OutcomeControl;
  webhooks: WebhookControl;
  clock: ClockControl;
  settings: SettingsStore;
  templates: TemplateCatalog;
  /** The named checks of a captured message, with the mock's spamd and link settings. */
  checkMessage: MessageChecker;
  /** Every part of the scope back to its start-up state. */
  reset(): Promise<void>;
}

/** The handles of a mock (docs/library.md, "What each handle does", lists every operation). */
export interface SendMockHandles {
  /** The captured messages. */
  readonly outbox: OutboxHandle;
  /** Every request to /send, newest first. */
  readonly journal: JournalHandle;
  /** Fault rules: `add`, `list`, `remove`, `clear`. */
  readonly faults: FaultsHandle;
  /** Outcome rules, deciding what happens to a message after capture: `add`, `list`, `remove`, `clear`. */
  readonly outcomes: OutcomesHandle;
  /** The mock's clock: `now()`, `advance(ms)` runs what falls due before it resolves. */
  readonly clock: ClockHandle;
  /** Webhooks: `add`, `list`, `remove`, `deliveries` (attempts, newest first), `replay`. */
  readonly webhooks: WebhooksHandle;
  /** The settings PATCH /_mock/config changes: `current()`, `update(change)`, `reset()`. */
  readonly settings: SettingsHandle;
  readonly templates: TemplatesHandle;
  /**
   * Outbox, journal, rate-limit state, fault and outcome rules, pending lifecycle steps, webhooks,
   * their deliveries and pending attempts, the clock and run-time settings back to their start-up state.
   */
  reset(): Promise<void>;
}

/** The handles over `scope`, each input checked against `adminContract` (admin.yaml) as its route checks it. */
export function createHandles(scope: HandleScope, adminContract: Contract): SendMockHandles {
  return {
    outbox: createOutboxHandle(scope.outbox, adminContract, scope.checkMessage),
    journal: createJournalHandle(scope.journal, adminContract),
    faults: createFaultsHandle(scope.faults, adminContract),
    outcomes: createOutcomesHandle(scope.outcomes, adminContract),
    clock: createClockHandle(scope.clock, adminContract),
    webhooks: createWebhooksHandle(scope.webhooks, adminContract),
    settings: createSettingsHandle(scope.settings, adminContract),
    templates: createTemplatesHandle(scope.templates, adminContract),
    reset: () => scope.reset(),
  };
}

export type { ClockHandle, FaultsHandle, JournalHandle, OutboxHandle, OutcomesHandle, SettingsHandle, TemplatesHandle, WebhooksHandle };
