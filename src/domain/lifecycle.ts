// A captured message's life after capture: its outcome decides a series of events, one every
// `step_ms` of the mock's clock, each moving its status on. Steps wait in the scheduler, one per
// message at a time: a message dropped for room or cleared takes its step (and its pending webhook
// attempts) with it, and the step of a message gone any other way finds it gone and ends there.

import { DomainFailure } from "./failure.js";
import type { CapturedMessage, MessageEvent, MessageEventType, MessageStatus, Outcome } from "../wire.js";
import { MAX_SCHEDULED_AHEAD_MS, type Clock } from "./clock.js";
import { startWithinJsonBytes } from "./excerpt.js";
import type { RecordedEvent } from "./outbox.js";
import { decideOutcome, type OutcomeBook } from "./outcomes.js";
import type { RuleTarget } from "./rule-book.js";
import type { Scheduler } from "./scheduler.js";

/** A day: a step longer than that is no test anyone waits for, even on an advanced clock. */
export const MAX_STEP_MS = MAX_SCHEDULED_AHEAD_MS;
/** Room kept for the marker that says a link was cut, `…[N more characters, …]`. */
const CUT_MARKER_BYTES = 64;
/** The scheduler's name for lifecycle steps. */
export const LIFECYCLE_STEP = "lifecycle";

export interface LifecycleSettings {
  stepMs: number;
  defaultOutcome: Outcome;
  /** False keeps every message `queued`. */
  enabled: boolean;
  /** Most events one message keeps; a by-hand event past it is refused, so no message grows without bound. */
  maxEvents: number;
  /** Most of the link a `message.clicked` event keeps, in bytes of JSON; the whole link stays in the message's `links`. */
  maxLinkBytes: number;
}

interface Step {
  type: MessageEventType;
  bounceType?: "hard" | "soft";
}

/** The events each outcome brings, in order after capture (docs/delivery-events.md). */
export const OUTCOME_STEPS: Readonly<Record<Outcome, readonly Step[]>> = {
  delivered: [{ type: "message.sent" }, { type: "message.delivered" }],
  bounced: [{ type: "message.sent" }, { type: "message.bounced", bounceType: "hard" }],
  soft_bounced: [{ type: "message.sent" }, { type: "message.deferred" }, { type: "message.bounced", bounceType: "soft" }],
  deferred: [{ type: "message.sent" }, { type: "message.deferred" }, { type: "message.delivered" }],
  complained: [{ type: "message.sent" }, { type: "message.delivered" }, { type: "message.complained" }],
  opened: [{ type: "message.sent" }, { type: "message.delivered" }, { type: "message.opened" }],
  clicked: [{ type: "message.sent" }, { type: "message.delivered" }, { type: "message.opened" }, { type: "message.clicked" }],
};

/** The status each event leads to: the state it names. */
export const STATUS_AFTER: Readonly<Record<MessageEventType, MessageStatus>> = {
  "message.sent": "sent",
  "message.deferred": "deferred",
  "message.delivered": "delivered",
  "message.bounced": "bounced",
  "message.complained": "complained",
  "message.opened": "opened",
  "message.clicked": "clicked",
};

/** What an event of a type needs to know beyond its time. */
interface EventContext {
  /** The message's links: a click names the first. */
  links: readonly string[];
  maxLinkBytes: number;
  bounceType?: "hard" | "soft";
}

/** The event of `type` at `atMs`, with the fields its type carries. */
export function eventFor(type: MessageEventType, atMs: number, { links, maxLinkBytes, bounceType = "hard" }: EventContext): MessageEvent {
  const at = new Date(atMs).toISOString();
  if (type === "message.bounced") return { type, at, bounce_type: bounceType };
  if (type === "message.clicked") return { type, at, link: links[0] === undefined ? null : linkWithin(links[0], maxLinkBytes) };
  return { type, at };
}

/**
 * The link whole when it takes at most `maxBytes` of JSON, else its start and a marker naming
 * where the whole link is: the event refers to the message's link instead of copying it.
 */
function linkWithin(link: string, maxBytes: number): string {
  if (!startWithinJsonBytes(link, maxBytes).truncated) return link;
  const start = startWithinJsonBytes(link, maxBytes - CUT_MARKER_BYTES).text;
  return `${start}…[${link.length - start.length} more characters, the whole link is links[0]]`;
}

/** What the lifecycle needs of the outbox. */
export interface MessageEvents {
  get(id: string): Promise<CapturedMessage | undefined>;
  /** Appends `event` and sets `status`; the message as it is now, or undefined when it is gone or has `maxEvents` events. */
  recordEvent(id: string, event: MessageEvent, status: MessageStatus, maxEvents?: number): Promise<RecordedEvent | undefined>;
}

export interface LifecycleDeps {
  settings: LifecycleSettings;
  outbox: MessageEvents;
  outcomes: OutcomeBook;
  scheduler: Scheduler;
  clock: Clock;
  /**
   * Told of each event once it is recorded, on the replica that recorded it (webhooks are sent
   * from here: the outbox's onEvent is heard by every replica, which would send them each once).
   */
  onRecorded?: (recorded: RecordedEvent, event: MessageEvent) => Promise<void>;
  /** Other pending work of a message (its webhook attempts), which leaves with it as its steps do. */
  alsoPending?: PendingWork;
}

/** Work waiting for messages, dropped with them. */
export interface PendingWork {
  forget(messageIds: readonly string[]): Promise<void>;
  clearPending(): Promise<void>;
}

export interface Lifecycle {
  /** The outcome of a message about to be captured (undefined when the lifecycle is off), and a warning to show on it. */
  outcomeFor(target: RuleTarget): Promise<{ outcome: Outcome; warning?: string } | undefined>;
  /** Schedules the first step of a message just captured. */
  start(message: CapturedMessage, outcome: Outcome): Promise<void>;
  /** Drops the pending steps (and other pending work) of messages that left the outbox. */
  forget(messageIds: readonly string[]): Promise<void>;
  /** Drops every pending step and other pending work (the outbox was cleared, or the mock reset). */
  clearPending(): Promise<void>;
  /** Appends an event of `type` to a message now: `POST /_mock/messages/{id}/events`. */
  appendNow(messageId: string, type: MessageEventType): Promise<MessageEvent>;
  /** Runs one step that fell due; the scheduler's handler for `lifecycle`. */
  runStep(payload: string, dueAtMs: number): Promise<void>;
}

interface StepPayload {
  messageId: string;
  outcome: Outcome;
  step: number;
}

export function createLifecycle(deps: LifecycleDeps): Lifecycle {
  const { settings, outbox, scheduler, clock } = deps;

  const scheduleStep = (payload: StepPayload, dueAtMs: number): Promise<void> => scheduler.schedule(LIFECYCLE_STEP, payload.messageId, payload, dueAtMs);
  // A message's pending webhook attempts go with its steps (dropped for room, deleted, cleared).
  const forget = async (messageIds: readonly string[]): Promise<void> => {
    if (messageIds.length === 0) return;
    await Promise.all([scheduler.unschedule(LIFECYCLE_STEP, messageIds), deps.alsoPending?.forget(messageIds)]);
  };

  return {
    async outcomeFor(target) {
      if (!settings.enabled) return undefined;
      return decideOutcome(deps.outcomes, target, settings.defaultOutcome);
    },

    async start(message, outcome) {
      if (!settings.enabled) return;
      await scheduleStep({ messageId: message.id, outcome, step: 0 }, Date.parse(message.created_at) + settings.stepMs);
    },

    forget,

    async clearPending() {
      await Promise.all([scheduler.clear(LIFECYCLE_STEP), deps.alsoPending?.clearPending()]);
    },

    async appendNow(messageId, type) {
      const message = await outbox.get(messageId);
      if (!message) throw new DomainFailure("not_found", `No captured message with id ${JSON.stringify(messageId)}`);
      const full = (count: number): DomainFailure =>
        new DomainFailure("invalid_request", `Message ${message.id} has ${count} events, the most a message keeps (lifecycle.max_events)`);
      if (message.events.length >= settings.maxEvents) throw full(message.events.length);
      const event = eventFor(type, clock.nowMs(), { links: message.links, maxLinkBytes: settings.maxLinkBytes });
      // The store counts again as it appends: events racing through other replicas may have filled it since.
      const recorded = await outbox.recordEvent(message.id, event, STATUS_AFTER[type], settings.maxEvents);
      if (!recorded) {
        const now = await outbox.get(message.id);
        if (now) throw full(now.events.length);
        throw new DomainFailure("not_found", `Message ${message.id} left the outbox before its event was recorded`);
      }
      // Messages dropped for the room the event took take their steps with them, as at capture.
      await forget(recorded.dropped);
      await deps.onRecorded?.(recorded, event);
      return event;
    },

    async runStep(payload, dueAtMs) {
      const { messageId, outcome, step } = JSON.parse(payload) as StepPayload;
      const steps = OUTCOME_STEPS[outcome];
      const current = steps[step];
      if (current === undefined) return;
      // Only a click names a link: the other steps need not read the message.
      const links = current.type === "message.clicked" ? ((await outbox.get(messageId))?.links ?? []) : [];
      const event = eventFor(current.type, dueAtMs, {
        links,
        maxLinkBytes: settings.maxLinkBytes,
        ...(current.bounceType && { bounceType: current.bounceType }),
      });
      // Undefined when the message was deleted, cleared or dropped for room: nothing more happens to it.
      const recorded = await outbox.recordEvent(messageId, event, STATUS_AFTER[current.type]);
      if (!recorded) return;
      // The event's webhooks first: scheduling the next step under this step's id ends this
      // step's hold on a shared store, and a replica killed in between would leave them unsent.
      await deps.onRecorded?.(recorded, event);
      if (step + 1 < steps.length) await scheduleStep({ messageId, outcome, step: step + 1 }, dueAtMs + settings.stepMs);
      // After scheduling: the message itself may be among those its event dropped for room.
      await forget(recorded.dropped);
    },
  };
}
