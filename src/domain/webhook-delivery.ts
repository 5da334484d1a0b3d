// Delivering a message's events to its webhooks. Each attempt waits for its time on the mock's
// clock in a store of its own (with a shared store, one replica makes each attempt), then runs
// in a bounded pool beside the others, never in front of lifecycle steps. A pending attempt holds
// no copy of its payload: the payload is built again from the message when the attempt is made.

import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import { DomainFailure } from "./failure.js";
import type { CapturedMessage, MessageEvent, MessageEventType, Webhook, WebhookDelivery, WebhookPayload } from "../wire.js";
import type { Clock } from "./clock.js";
import { createDeliveryPool, type DeliveryPool } from "./delivery-pool.js";
import { STATUS_AFTER } from "./lifecycle.js";
import type { RecordedEvent } from "./outbox.js";
import { createScheduler, type DueItem, type DueWorkStore, type WatchDue } from "./scheduler.js";
import { signatureOf, type DeliveryLog, type WebhookStore } from "./webhooks.js";

/** The scheduler's name for webhook attempts. */
export const WEBHOOK_ATTEMPT = "webhook";

/** What came of one POST: the receiver's status, or why there was none. */
export type PostResult = { status: number } | { error: string };

/** Posts `body` (UTF-8 JSON) to `url` and discards the response's body; never throws. `signal` cuts it off. */
export type WebhookPost = (request: { url: string; headers: Record<string, string>; body: Uint8Array; signal: AbortSignal }) => Promise<PostResult>;

export interface WebhookDeliveryDeps {
  store: WebhookStore;
  log: DeliveryLog;
  /** Where attempts wait for their time: their own, so that lifecycle steps never wait behind them. */
  dueWork: DueWorkStore;
  clock: Clock;
  /** The captured messages, read to build a payload again. */
  messages: { get(id: string): Promise<CapturedMessage | undefined> };
  post: WebhookPost;
  timeoutMs: number;
  /** Mock-clock delays before each retry; their count is the number of retries. */
  retryMs: readonly number[];
  /** Where attempts are made, shared by every sandbox's delivering (`createWebhookPool`): its places bound them all together. */
  pool: DeliveryPool;
  /** Attempts waiting to be made at once, every sandbox's together; an event's attempt past it is listed as not sent. */
  maxPending: number;
  /** Payloads kept built for the attempts of the same event; shared by every sandbox's delivering, so that max_bytes' share bounds them all. */
  payloadCache: PayloadCache;
  /** The sandbox whose events these are, named in each delivery's `x-sendmock-sandbox` header; none for the default sandbox. */
  sandbox?: string;
  /** What is wrong with a payload against openapi/send.yaml `webhooks`, or undefined. */
  payloadProblem: (payload: WebhookPayload) => string | undefined;
  /** Where sendmock's own faults are told (a payload off the contract, an attempt that failed to run). */
  reportProblem: (line: string) => void;
  /** Wakes the attempts' scheduler when a store other replicas share may hold work due that it did not schedule. */
  watch?: WatchDue;
  /** Real time, for `webhook-timestamp`: a receiver's tolerance check compares it with its own clock. */
  realNowMs?: () => number;
}

export interface WebhookDelivering {
  /** Schedules the deliveries of an event just recorded; called on the replica that recorded it, so each event is delivered once. */
  eventRecorded(recorded: RecordedEvent, event: MessageEvent): Promise<void>;
  /**
   * Makes the attempts due by `targetMs` on the mock's clock, side by side, and the retries that
   * fall due by then, waiting for them at most `timeoutMs` of real time whatever the receivers do;
   * an attempt still waiting then ends in the background.
   */
  runDue(targetMs: number): Promise<void>;
  /** Sends the event of delivery `id` again now, with the same `webhook-id`. */
  replay(deliveryId: string): Promise<WebhookDelivery>;
  /** Drops the pending and running attempts of messages that left the outbox. */
  forget(messageIds: readonly string[]): Promise<void>;
  /** Drops every pending and running attempt (the outbox was cleared, or the mock reset). */
  clearPending(): Promise<void>;
  /** Stops: nothing runs after it, and attempts under way are cut off unrecorded. */
  stop(): void;
}

/** One attempt waiting for its time: no payload, only where to build it from. */
interface AttemptItem {
  webhookId: string;
  eventId: string;
  eventType: MessageEventType;
  messageId: string;
  /** The event's place in the message's `events`. */
  eventIndex: number;
  /** 1, or 2 for the second copy of a `duplicate` webhook: each copy has its own retries. */
  copy: number;
  /** Retries made before this attempt: the next delay is `retryMs[retry]`. */
  retry: number;
  /** Its number at least: the log makes it one more than any attempt of the event listed. */
  attempt: number;
}

/** Why an attempt under way was cut off when its message left the outbox. */
const MESSAGE_LEFT = "abandoned: its message left the outbox (dropped for room, deleted or cleared)";

/** The body of a delivery: the event, on the message it happened to, with the status the event led to. */
export function payloadOf(message: CapturedMessage, event: MessageEvent): WebhookPayload {
  const { type, at, ...own } = event;
  return {
    type,
    timestamp: at,
    data: { message_id: message.id, to: message.to, template_id: message.template_id, subject: message.subject, status: STATUS_AFTER[type], ...own },
  };
}

/** Payload bodies built lately, by event id (unique across sandboxes). */
export type PayloadCache = ReturnType<typeof createPayloadCache>;

/**
 * Bodies built lately, in UTF-8 bytes (what is signed and sent, encoded once), by event, the least
 * recently used going past `maxBytes` (0 builds each again): the attempts of one event to many
 * webhooks build it once, and share it, so a large payload is neither encoded nor copied per attempt.
 */
export function createPayloadCache(maxBytes: number) {
  const bodies = new Map<string, { messageId: string; body: Buffer }>();
  let bytes = 0;
  const remove = (eventId: string): void => {
    const found = bodies.get(eventId);
    if (found === undefined) return;
    bodies.delete(eventId);
    bytes -= found.body.length;
  };
  return {
    get(eventId: string): Buffer | undefined {
      const found = bodies.get(eventId);
      if (found === undefined) return undefined;
      // Used again: it moves to the newest end.
      bodies.delete(eventId);
      bodies.set(eventId, found);
      return found.body;
    },
    set(eventId: string, messageId: string, body: Buffer): void {
      remove(eventId);
      if (body.length > maxBytes) return;
      bodies.set(eventId, { messageId, body });
      bytes += body.length;
      for (const oldest of bodies.keys()) {
        if (bytes <= maxBytes) break;
        remove(oldest);
      }
    },
    forget(messageIds: ReadonlySet<string>): void {
      for (const [eventId, { messageId }] of bodies) if (messageIds.has(messageId)) remove(eventId);
    },
    clear(): void {
      bodies.clear();
      bytes = 0;
    },
  };
}

/**
 * The pool of one mock's webhook attempts, `concurrency` places for every sandbox together (a pool
 * per sandbox let 30 sandboxes hold 720 attempts open to one receiver that never answered).
 */
export function createWebhookPool(concurrency: number): DeliveryPool {
  return createDeliveryPool({
    concurrency,
    // A quarter each, more while another quarter stays free: a receiver that hangs holds at most
    // three quarters, and the other webhooks go on; a lone webhook uses three quarters.
    share: Math.max(1, Math.ceil(concurrency / 4)),
  });
}

export function createWebhookDelivering(deps: WebhookDeliveryDeps): WebhookDelivering {
  const { store, log, clock, dueWork } = deps;
  const realNowMs = deps.realNowMs ?? Date.now;
  const cache = deps.payloadCache;
  let stopped = false;
  // Filled once the scheduler exists: the pool tells it when there is room, it hands the pool attempts.
  let wakeScheduler: () => void = () => undefined;
  const pool = deps.pool.part({ onRoom: () => wakeScheduler(), waiting: () => dueWork.size() });
  const scheduler = createScheduler({
    store: dueWork,
    clock,
    // Handing an attempt to the pool is all a run does: the attempt is made beside the others,
    // and the item is held until it has been made (a replica stopped before leaves it to another).
    handlers: {
      [WEBHOOK_ATTEMPT]: (payload, dueAtMs) => Promise.resolve({ running: pool.add(jobOf(JSON.parse(payload) as AttemptItem, dueAtMs)) }),
    },
    room: () => pool.room(),
    ...(deps.watch !== undefined && { watch: deps.watch }),
    onError: (error: unknown, item: DueItem) =>
      deps.reportProblem(`sendmock: webhook attempt ${item.id} failed: ${error instanceof Error ? error.message : String(error)}`),
  });
  wakeScheduler = () => {
    scheduler.runDue().catch(() => undefined);
  };

  const keyOf = (item: AttemptItem): string => `${item.messageId}/${item.eventId}/${item.webhookId}/${item.copy}`;

  function deliveryOf(item: AttemptItem, atMs: number): WebhookDelivery {
    return {
      id: `whd_${randomUUID()}`,
      webhook_id: item.webhookId,
      event_id: item.eventId,
      event_type: item.eventType,
      message_id: item.messageId,
      attempt: item.attempt,
      status: null,
      error: null,
      duration_ms: 0,
      at: new Date(atMs).toISOString(),
      next_attempt_at: null,
    };
  }

  /** Lists an attempt that was never made, and why. */
  const listNotSent = (item: AttemptItem, atMs: number, why: string): Promise<WebhookDelivery> =>
    log.add({ delivery: { ...deliveryOf(item, atMs), error: why }, copy: item.copy, eventIndex: item.eventIndex });

  /** The payload's body, from the cache or built again from the message; undefined when the message (or that event of it) is gone. */
  async function bodyOf(item: AttemptItem): Promise<Buffer | undefined> {
    const cached = cache.get(item.eventId);
    if (cached !== undefined) return cached;
    const message = await deps.messages.get(item.messageId);
    const event = message?.events[item.eventIndex];
    if (message === undefined || event?.type !== item.eventType) return undefined;
    const body = Buffer.from(JSON.stringify(payloadOf(message, event)));
    cache.set(item.eventId, item.messageId, body);
    return body;
  }

  async function post(webhook: Webhook, eventId: string, body: Buffer, signal: AbortSignal): Promise<{ status: number | null; error: string | null }> {
    const timestamp = Math.floor(realNowMs() / 1000);
    const headers = {
      "content-type": "application/json",
      "user-agent": "sendmock-webhooks",
      "webhook-id": eventId,
      "webhook-timestamp": String(timestamp),
      "webhook-signature": signatureOf(webhook.secret, eventId, timestamp, body),
      // The payload has no room for it (send.yaml's payloads allow no other field): a receiver of events from several sandboxes tells them apart by this.
      ...(deps.sandbox !== undefined && { "x-sendmock-sandbox": deps.sandbox }),
    };
    const result = await deps.post({ url: webhook.url, headers, body, signal });
    if ("error" in result) return { status: null, error: result.error };
    const { status } = result;
    if (status >= 200 && status < 300) return { status, error: null };
    return { status, error: status === 410 ? "the receiver answered 410 Gone: the webhook is disabled" : `the receiver answered ${status}` };
  }

  /**
   * Makes one attempt: listed as waiting when it starts, settled with how it ended, its retry
   * scheduled when it failed and `retries` allows. Resolves with it as it ended, or undefined when
   * it was not made (its webhook or message gone, or the job dropped before it posted).
   */
  async function attemptOnce(item: AttemptItem, dueAtMs: number, dropped: AbortSignal, retries: boolean): Promise<WebhookDelivery | undefined> {
    // Started before anything is awaited: an advance that waits for this attempt starts its own
    // deadline later, so an attempt that times out is recorded before the advance stops waiting.
    const timeout = new AbortController();
    const timer = setTimeout(() => timeout.abort(), deps.timeoutMs);
    timer.unref();
    // Read afresh after each wait: the job may be dropped during any of them.
    const isDropped = (): boolean => dropped.aborted;
    try {
      const webhook = await store.get(item.webhookId);
      // Removed or disabled since: its pending attempts end here.
      if (!webhook?.enabled || isDropped()) return undefined;
      const body = await bodyOf(item);
      if (body === undefined || isDropped()) return undefined;
      const listed = await log.add({ delivery: deliveryOf(item, dueAtMs), copy: item.copy, eventIndex: item.eventIndex });
      const started = performance.now();
      const outcome = await post(webhook, item.eventId, body, AbortSignal.any([dropped, timeout.signal]));
      const durationMs = Math.round(performance.now() - started);
      if (isDropped()) {
        const abandoned = { ...listed, error: String(dropped.reason), duration_ms: durationMs };
        await log.settle(abandoned);
        return abandoned;
      }
      const error = timeout.signal.aborted ? `no answer within ${deps.timeoutMs} ms (webhook_timeout_ms)` : outcome.error;
      const delayMs = retries && error !== null && outcome.status !== 410 ? deps.retryMs[item.retry] : undefined;
      const nextAtMs = delayMs === undefined ? null : dueAtMs + delayMs;
      const ended: WebhookDelivery = {
        ...listed,
        status: outcome.status,
        error,
        duration_ms: durationMs,
        next_attempt_at: nextAtMs === null ? null : new Date(nextAtMs).toISOString(),
      };
      await log.settle(ended);
      if (outcome.status === 410) await store.disable(webhook.id);
      // Scheduled before the job ends: an advance that waits for it finds the retry due.
      if (nextAtMs !== null) {
        const next: AttemptItem = { ...item, retry: item.retry + 1, attempt: listed.attempt + 1 };
        await scheduler.schedule(WEBHOOK_ATTEMPT, keyOf(next), next, nextAtMs, item.messageId);
      }
      return ended;
    } finally {
      clearTimeout(timer);
    }
  }

  function jobOf(item: AttemptItem, dueAtMs: number) {
    return {
      lane: `${item.webhookId}/${item.copy}/${item.messageId}`,
      webhook: item.webhookId,
      group: item.messageId,
      dueAtMs,
      run: async (dropped: AbortSignal): Promise<void> => {
        try {
          await attemptOnce(item, dueAtMs, dropped, true);
        } catch (error) {
          if (!stopped)
            deps.reportProblem(
              `sendmock: webhook attempt of ${item.eventId} to ${item.webhookId} failed: ${error instanceof Error ? error.message : String(error)}`,
            );
        }
      },
    };
  }

  /** Resolves with "deadline" after `ms`; `cancel` lets go of the timer. */
  function deadlineAfter(ms: number): { reached: Promise<"deadline">; cancel: () => void } {
    let timer: NodeJS.Timeout | undefined;
    const reached = new Promise<"deadline">((resolve) => {
      timer = setTimeout(() => resolve("deadline"), ms);
      // Whoever waits for the advance keeps the process alive; this timer alone should not.
      timer.unref();
    });
    return { reached, cancel: () => clearTimeout(timer) };
  }

  return {
    async eventRecorded(recorded, event) {
      const webhooks = (await store.list()).filter((webhook) => webhook.enabled && webhook.events.includes(event.type));
      if (webhooks.length === 0) return;
      const message = recorded.message();
      const payload = payloadOf(message, event);
      const eventId = `evt_${randomUUID()}`;
      const atMs = Date.parse(event.at);
      const problem = deps.payloadProblem(payload);
      if (problem !== undefined)
        deps.reportProblem(`sendmock: webhook payload of ${event.type} on ${message.id} breaks openapi/send.yaml and was not sent: ${problem}`);
      // Built now, while the message is at hand: the first attempts, due now, need not read it again.
      else cache.set(eventId, message.id, Buffer.from(JSON.stringify(payload)));
      // Every sandbox's attempts count: those under way in the pool, and those waiting in each sandbox's due work.
      let room = problem === undefined ? deps.maxPending - (await pool.pendingEverywhere()) : 0;
      for (const webhook of webhooks) {
        for (const copy of webhook.duplicate ? [1, 2] : [1]) {
          const item: AttemptItem = {
            webhookId: webhook.id,
            eventId,
            eventType: event.type,
            messageId: message.id,
            eventIndex: message.events.length - 1,
            copy,
            retry: 0,
            attempt: 1,
          };
          if (problem !== undefined) {
            await listNotSent(item, atMs, `not sent: the payload breaks openapi/send.yaml (a sendmock bug): ${problem}`);
          } else if (room <= 0) {
            await listNotSent(item, atMs, `not sent: ${deps.maxPending} attempts already wait (max_pending_webhook_attempts)`);
          } else {
            room -= 1;
            // Due when the event happened: on an advanced clock, its retries keep their time order with later events.
            await scheduler.schedule(WEBHOOK_ATTEMPT, keyOf(item), item, atMs, message.id);
          }
        }
      }
    },

    async runDue(targetMs) {
      let deadline: ReturnType<typeof deadlineAfter> | undefined;
      try {
        for (;;) {
          const endedBefore = pool.ended();
          await scheduler.runDue();
          // Attempts that fell due by then, whoever started them (a timer may have, a moment before):
          // those of later events, which real time keeps bringing, are not this advance's.
          const ours = pool.pendingDueBy(targetMs);
          const dueLeft = ((await dueWork.nextDueAtMs()) ?? Number.POSITIVE_INFINITY) <= targetMs;
          if (ours.length === 0 && !dueLeft) return;
          // Started once the first attempts are under way: each of those times out before it.
          deadline ??= deadlineAfter(deps.timeoutMs);
          // Due attempts left and none of ours running: the pool is full of others', wait for a place.
          const progress = ours.length > 0 ? Promise.all(ours) : pool.endedAfter(endedBefore);
          if ((await Promise.race([progress, deadline.reached])) === "deadline") return;
        }
      } finally {
        deadline?.cancel();
      }
    },

    async replay(deliveryId) {
      const stored = await log.get(deliveryId);
      if (!stored) throw new DomainFailure("not_found", `No webhook delivery with id ${JSON.stringify(deliveryId)}`);
      const { delivery } = stored;
      const webhook = await store.get(delivery.webhook_id);
      if (!webhook) throw new DomainFailure("not_found", `Webhook ${delivery.webhook_id} of delivery ${delivery.id} was removed`);
      if (!webhook.enabled) {
        throw new DomainFailure(
          "invalid_request",
          `Webhook ${webhook.id} is disabled: its receiver answered 410 Gone, so nothing more is posted to it; remove it and add it again to deliver to it`,
        );
      }
      const item: AttemptItem = {
        webhookId: webhook.id,
        eventId: delivery.event_id,
        eventType: delivery.event_type,
        messageId: delivery.message_id,
        eventIndex: stored.eventIndex,
        copy: stored.copy,
        retry: 0,
        attempt: delivery.attempt + 1,
      };
      if ((await bodyOf(item)) === undefined) {
        throw new DomainFailure(
          "not_found",
          `Delivery ${delivery.id} cannot be sent again: its message ${delivery.message_id} is no longer kept (dropped for room or deleted)`,
        );
      }
      const result: { made?: WebhookDelivery } = {};
      const nowMs = clock.nowMs();
      // A lane of its own: a replay waits for a place, not for the message's other attempts.
      await pool.add({
        lane: `replay/${randomUUID()}`,
        webhook: item.webhookId,
        group: item.messageId,
        dueAtMs: nowMs,
        run: async (dropped) => {
          // A replay is one attempt, asked for by hand: it is not retried.
          result.made = await attemptOnce(item, nowMs, dropped, false);
        },
      });
      if (result.made === undefined)
        throw new DomainFailure("not_found", `Delivery ${delivery.id} was not sent again: its webhook or its message went meanwhile`);
      return result.made;
    },

    async forget(messageIds) {
      if (messageIds.length === 0) return;
      pool.dropGroups(messageIds, MESSAGE_LEFT);
      cache.forget(new Set(messageIds));
      await dueWork.removeGroups(messageIds);
    },

    async clearPending() {
      pool.dropAll(MESSAGE_LEFT);
      // Shared with the other sandboxes: theirs are built again when their attempts ask.
      cache.clear();
      await scheduler.clear(WEBHOOK_ATTEMPT);
    },

    stop() {
      stopped = true;
      scheduler.stop();
      // Listed as waiting, each says why it ended (a shared store outlives this replica).
      pool.dropAll("abandoned: sendmock was closed while it waited for the receiver");
      pool.leave();
    },
  };
}
