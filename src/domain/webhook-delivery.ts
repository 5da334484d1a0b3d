// Delivering a message's events to its webhooks: each attempt is due work of the scheduler, so
// retries follow the mock's clock and, with a shared store, one replica makes each attempt.

import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import { ApiError } from "../errors.js";
import type { CapturedMessage, MessageEvent, MessageEventType, Webhook, WebhookDelivery, WebhookPayload } from "../wire.js";
import type { Clock } from "./clock.js";
import type { RecordedEvent } from "./outbox.js";
import type { Scheduler } from "./scheduler.js";
import { signatureOf, type DeliveryLog, type WebhookStore } from "./webhooks.js";

/** The scheduler's name for webhook attempts. */
export const WEBHOOK_ATTEMPT = "webhook";

/** What came of one POST: the receiver's status, or why there was none. */
export type PostResult = { status: number } | { error: string };

/** Posts `body` to `url` and discards the answer's body; never throws. */
export type WebhookPost = (request: { url: string; headers: Record<string, string>; body: string; timeoutMs: number }) => Promise<PostResult>;

export interface WebhookDeliveryDeps {
  store: WebhookStore;
  log: DeliveryLog;
  scheduler: Scheduler;
  clock: Clock;
  post: WebhookPost;
  timeoutMs: number;
  /** Mock-clock delays before each retry; their count is the number of retries. */
  retryMs: readonly number[];
  /** What is wrong with a payload against openapi/send.yaml `webhooks`, or undefined. */
  payloadProblem: (payload: WebhookPayload) => string | undefined;
  /** Where sendmock's own faults are told (a payload off the contract). */
  reportProblem: (line: string) => void;
  /** Real time, for `webhook-timestamp`: a receiver's tolerance check compares it with its own clock. */
  realNowMs?: () => number;
}

export interface WebhookDelivering {
  /** Schedules the deliveries of an event just recorded; called on the replica that recorded it, so each event is delivered once. */
  eventRecorded(recorded: RecordedEvent, event: MessageEvent): Promise<void>;
  /** Makes one attempt that fell due; the scheduler's handler for `webhook`. */
  runAttempt(payload: string, dueAtMs: number): Promise<void>;
  /** Sends the event of delivery `id` again now, with the same `webhook-id`. */
  replay(deliveryId: string): Promise<WebhookDelivery>;
  /** Drops every pending attempt (reset). */
  clearPending(): Promise<void>;
}

interface AttemptPayload {
  webhookId: string;
  eventId: string;
  eventType: MessageEventType;
  messageId: string;
  attempt: number;
  /** 1, or 2 for the second copy of a `duplicate` webhook: each copy has its own retries. */
  copy: number;
  body: string;
}

/** The body of a delivery: the event, on the message it happened to. */
export function payloadOf(message: CapturedMessage, event: MessageEvent): WebhookPayload {
  const { type, at, ...own } = event;
  return {
    type,
    timestamp: at,
    data: { message_id: message.id, to: message.to, template_id: message.template_id, subject: message.subject, status: message.status, ...own },
  };
}

export function createWebhookDelivering(deps: WebhookDeliveryDeps): WebhookDelivering {
  const { store, log, scheduler, clock } = deps;
  const realNowMs = deps.realNowMs ?? Date.now;

  async function post(webhook: Webhook, eventId: string, body: string): Promise<{ status: number | null; error: string | null; durationMs: number }> {
    const timestamp = Math.floor(realNowMs() / 1000);
    const headers = {
      "content-type": "application/json",
      "user-agent": "sendmock-webhooks",
      "webhook-id": eventId,
      "webhook-timestamp": String(timestamp),
      "webhook-signature": signatureOf(webhook.secret, eventId, timestamp, body),
    };
    const started = performance.now();
    const result = await deps.post({ url: webhook.url, headers, body, timeoutMs: deps.timeoutMs });
    const durationMs = Math.round(performance.now() - started);
    if ("error" in result) return { status: null, error: result.error, durationMs };
    const { status } = result;
    if (status >= 200 && status < 300) return { status, error: null, durationMs };
    const error = status === 410 ? "the receiver answered 410 Gone: the webhook is disabled" : `the receiver answered ${status}`;
    return { status, error, durationMs };
  }

  const record = async (
    attempt: AttemptPayload,
    outcome: { status: number | null; error: string | null; durationMs: number },
    atMs: number,
    nextAtMs: number | null,
  ) => {
    const delivery: WebhookDelivery = {
      id: `whd_${randomUUID()}`,
      webhook_id: attempt.webhookId,
      event_id: attempt.eventId,
      event_type: attempt.eventType,
      message_id: attempt.messageId,
      attempt: attempt.attempt,
      status: outcome.status,
      error: outcome.error,
      duration_ms: outcome.durationMs,
      at: new Date(atMs).toISOString(),
      next_attempt_at: nextAtMs === null ? null : new Date(nextAtMs).toISOString(),
    };
    await log.record({ delivery, body: attempt.body });
    return delivery;
  };

  return {
    async eventRecorded(recorded, event) {
      const webhooks = (await store.list()).filter((webhook) => webhook.enabled && webhook.events.includes(event.type));
      if (webhooks.length === 0) return;
      const message = recorded.message();
      const payload = payloadOf(message, event);
      const body = JSON.stringify(payload);
      const eventId = `evt_${randomUUID()}`;
      const atMs = Date.parse(event.at);
      const problem = deps.payloadProblem(payload);
      if (problem !== undefined)
        deps.reportProblem(`sendmock: webhook payload of ${event.type} on ${message.id} breaks openapi/send.yaml and was not sent: ${problem}`);
      for (const webhook of webhooks) {
        for (const copy of webhook.duplicate ? [1, 2] : [1]) {
          const attempt: AttemptPayload = { webhookId: webhook.id, eventId, eventType: event.type, messageId: message.id, attempt: 1, copy, body };
          if (problem !== undefined) {
            await record(
              attempt,
              { status: null, error: `not sent: the payload breaks openapi/send.yaml (a sendmock bug): ${problem}`, durationMs: 0 },
              atMs,
              null,
            );
            continue;
          }
          // Due when the event happened: on an advanced clock, its retries keep their time order with later events.
          await scheduler.schedule(WEBHOOK_ATTEMPT, `${eventId}:${webhook.id}:${copy}`, attempt, atMs);
        }
      }
    },

    async runAttempt(payloadText, dueAtMs) {
      const attempt = JSON.parse(payloadText) as AttemptPayload;
      const webhook = await store.get(attempt.webhookId);
      // Removed or disabled since: its pending attempts end here.
      if (!webhook?.enabled) return;
      const outcome = await post(webhook, attempt.eventId, attempt.body);
      const failed = outcome.error !== null;
      const retryAfterMs = failed && outcome.status !== 410 ? deps.retryMs[attempt.attempt - 1] : undefined;
      const nextAtMs = retryAfterMs === undefined ? null : dueAtMs + retryAfterMs;
      await record(attempt, outcome, dueAtMs, nextAtMs);
      if (outcome.status === 410) await store.disable(webhook.id);
      if (nextAtMs !== null) {
        await scheduler.schedule(
          WEBHOOK_ATTEMPT,
          `${attempt.eventId}:${attempt.webhookId}:${attempt.copy}`,
          { ...attempt, attempt: attempt.attempt + 1 },
          nextAtMs,
        );
      }
    },

    async replay(deliveryId) {
      const stored = await log.get(deliveryId);
      if (!stored) throw new ApiError("not_found", `No webhook delivery with id ${JSON.stringify(deliveryId)}`);
      const { delivery } = stored;
      const webhook = await store.get(delivery.webhook_id);
      if (!webhook) throw new ApiError("not_found", `Webhook ${delivery.webhook_id} of delivery ${delivery.id} was removed`);
      const earlier = await log.list({ webhookId: webhook.id });
      const attempts = earlier.filter((other) => other.event_id === delivery.event_id).map((other) => other.attempt);
      const attempt: AttemptPayload = {
        webhookId: webhook.id,
        eventId: delivery.event_id,
        eventType: delivery.event_type,
        messageId: delivery.message_id,
        attempt: Math.max(delivery.attempt, ...attempts) + 1,
        copy: 1,
        body: stored.body,
      };
      const outcome = await post(webhook, attempt.eventId, attempt.body);
      if (outcome.status === 410) await store.disable(webhook.id);
      // A replay is one attempt, asked for by hand: it is not retried.
      return record(attempt, outcome, clock.nowMs(), null);
    },

    clearPending: () => scheduler.clear(WEBHOOK_ATTEMPT),
  };
}
