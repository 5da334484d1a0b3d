// What every store of webhooks and of their delivery attempts promises, whichever keeps them:
// the start-up webhooks first and back on reset, the limit, disabling; attempts newest first,
// filtered, bounded, numbered once each, settled in their place, and told to listeners as they end.

import { describe, expect, it } from "vitest";
import { newWebhook, type DeliveryLog, type StoredDelivery, type WebhookStore } from "../../src/domain/webhooks.js";
import type { Webhook, WebhookDelivery } from "../../src/wire.js";

export type MakeWebhookStore = (startUp: readonly Webhook[]) => Promise<WebhookStore>;
export type MakeDeliveryLog = (capacity: number) => Promise<DeliveryLog>;

export function aWebhook(url = "http://127.0.0.1:3000/hooks"): Webhook {
  return newWebhook({ url });
}

let attempts = 0;

/** An attempt of `messageId` to `webhookId` that ended with a 200, with an id and an event of its own unless `eventId` names one. */
export function anAttempt(messageId: string, webhookId = "wh_1", eventId?: string): StoredDelivery {
  attempts += 1;
  return {
    delivery: {
      id: `whd_${attempts}`,
      webhook_id: webhookId,
      event_id: eventId ?? `evt_${attempts}`,
      event_type: "message.sent",
      message_id: messageId,
      attempt: 1,
      status: 200,
      error: null,
      duration_ms: 1,
      at: "2026-11-22T09:26:00.000Z",
      next_attempt_at: null,
    },
    copy: 1,
    eventIndex: 0,
  };
}

/** The attempt as it is listed when it starts: no response yet. */
export function waitingFor(attempt: StoredDelivery): StoredDelivery {
  return { ...attempt, delivery: { ...attempt.delivery, status: null, error: null, duration_ms: 0 } };
}

/** Resolves with the next `count` attempts the log tells its listeners about (on Redis, a moment after they are recorded). */
export function nextDeliveries(log: DeliveryLog, count: number): Promise<WebhookDelivery[]> {
  return new Promise((resolve) => {
    const heard: WebhookDelivery[] = [];
    const unsubscribe = log.onRecord((delivery) => {
      heard.push(delivery);
      if (heard.length < count) return;
      unsubscribe();
      resolve(heard);
    });
  });
}

/** @param makeStore a new, empty store of its own on every call */
export function describeWebhookStoreContract(name: string, makeStore: MakeWebhookStore): void {
  describe(name, () => {
    it("lists the start-up webhooks, then the added ones, in order", async () => {
      const startUp = aWebhook("http://127.0.0.1:3000/a");
      const store = await makeStore([startUp]);
      const added = aWebhook("http://127.0.0.1:3000/b");
      expect(await store.add(added, 10)).toBe(true);
      expect(await store.list()).toEqual([startUp, added]);
      expect(await store.get(added.id)).toEqual(added);
      expect(await store.get("wh_nope")).toBeUndefined();
    });

    it("refuses a webhook past the limit", async () => {
      const store = await makeStore([aWebhook()]);
      expect(await store.add(aWebhook(), 1)).toBe(false);
      expect(await store.list()).toHaveLength(1);
    });

    it("removes one, and says whether it was there", async () => {
      const webhook = aWebhook();
      const store = await makeStore([webhook]);
      expect(await store.remove(webhook.id)).toBe(true);
      expect(await store.remove(webhook.id)).toBe(false);
      expect(await store.list()).toEqual([]);
    });

    it("disables one", async () => {
      const webhook = aWebhook();
      const store = await makeStore([webhook]);
      await store.disable(webhook.id);
      expect(await store.get(webhook.id)).toEqual({ ...webhook, enabled: false });
      expect(await store.list()).toEqual([{ ...webhook, enabled: false }]);
    });

    it("puts the start-up webhooks back on reset, enabled, and forgets the added ones", async () => {
      const startUp = aWebhook();
      const store = await makeStore([startUp]);
      await store.add(aWebhook(), 10);
      await store.disable(startUp.id);
      await store.remove(startUp.id);
      await store.reset();
      expect(await store.list()).toEqual([startUp]);
    });
  });
}

/** @param makeLog a new, empty log of its own on every call */
export function describeDeliveryLogContract(name: string, makeLog: MakeDeliveryLog): void {
  describe(name, () => {
    it("lists attempts newest first, filtered by message and webhook, up to a limit", async () => {
      const log = await makeLog(100);
      const [first, second, third] = [anAttempt("msg_a", "wh_1"), anAttempt("msg_b", "wh_1"), anAttempt("msg_a", "wh_2")];
      for (const attempt of [first, second, third]) await log.add(attempt);
      expect(await log.list({})).toEqual([third.delivery, second.delivery, first.delivery]);
      expect(await log.list({ messageId: "msg_a" })).toEqual([third.delivery, first.delivery]);
      expect(await log.list({ webhookId: "wh_1" })).toEqual([second.delivery, first.delivery]);
      expect(await log.list({ messageId: "msg_a", webhookId: "wh_1" })).toEqual([first.delivery]);
      expect(await log.list({ limit: 1 })).toEqual([third.delivery]);
    });

    it("finds an attempt with where its payload comes from by id, and no body", async () => {
      const log = await makeLog(100);
      const attempt = { ...anAttempt("msg_a"), copy: 2, eventIndex: 3 };
      await log.add(attempt);
      expect(await log.get(attempt.delivery.id)).toEqual(attempt);
      expect(await log.get("whd_nope")).toBeUndefined();
    });

    it("keeps the newest `capacity` attempts", async () => {
      const log = await makeLog(3);
      const recorded = Array.from({ length: 5 }, () => anAttempt("msg_a"));
      for (const attempt of recorded) await log.add(attempt);
      expect(await log.list({})).toEqual(
        recorded
          .slice(2)
          .reverse()
          .map((attempt) => attempt.delivery),
      );
      expect(await log.get(recorded[0]?.delivery.id ?? "")).toBeUndefined();
    });

    it("numbers the attempts of one event, webhook and copy one more than the highest listed, each its own when added at once", async () => {
      const log = await makeLog(100);
      const ofEvent = (copy = 1): StoredDelivery => ({ ...anAttempt("msg_a", "wh_1", "evt_x"), copy });
      const first = await log.add(ofEvent());
      const atOnce = await Promise.all(Array.from({ length: 20 }, () => log.add(ofEvent())));
      expect(first.attempt).toBe(1);
      expect(atOnce.map((delivery) => delivery.attempt).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, index) => index + 2));
      // Another copy, another webhook, another event: each counts from 1.
      expect((await log.add(ofEvent(2))).attempt).toBe(1);
      expect((await log.add(anAttempt("msg_a", "wh_2", "evt_x"))).attempt).toBe(1);
      expect((await log.add(anAttempt("msg_a", "wh_1", "evt_y"))).attempt).toBe(1);
      // A number asked for that is higher stays.
      const later = ofEvent();
      expect((await log.add({ ...later, delivery: { ...later.delivery, attempt: 40 } })).attempt).toBe(40);
      expect((await log.list({ limit: 1 }))[0]?.attempt).toBe(40);
    });

    it("counts an event's attempts from 1 again once none of them is listed", async () => {
      const log = await makeLog(2);
      await log.add(anAttempt("msg_a", "wh_1", "evt_x"));
      await log.add(anAttempt("msg_a", "wh_1", "evt_x"));
      await log.add(anAttempt("msg_b"));
      await log.add(anAttempt("msg_c"));
      expect((await log.add(anAttempt("msg_a", "wh_1", "evt_x"))).attempt).toBe(1);
    });

    it("settles a waiting attempt in its place and with its number, and tells its listeners then", async () => {
      const log = await makeLog(10);
      const heard: WebhookDelivery[] = [];
      log.onRecord((delivery) => heard.push(delivery));
      const started = await log.add(waitingFor(anAttempt("msg_a", "wh_1", "evt_x")));
      const later = await log.add(anAttempt("msg_b"));
      expect(await log.list({})).toEqual([later, started]);

      const ended = { ...started, attempt: 99, status: 500, error: "the receiver answered 500", duration_ms: 12 };
      const told = nextDeliveries(log, 1);
      await log.settle(ended);

      expect(await told).toEqual([{ ...ended, attempt: started.attempt }]);
      expect(await log.list({})).toEqual([later, { ...ended, attempt: started.attempt }]);
      expect(heard.map((delivery) => delivery.id)).toEqual([later.id, started.id]);
    });

    it("settles nothing that is no longer listed", async () => {
      const log = await makeLog(10);
      const started = await log.add(waitingFor(anAttempt("msg_a")));
      await log.clear();
      await log.settle({ ...started, status: 200 });
      expect(await log.list({})).toEqual([]);
    });

    it("tells its listeners each attempt that ended as it is listed, until they unsubscribe", async () => {
      const log = await makeLog(10);
      const heard: string[] = [];
      const unsubscribe = log.onRecord((delivery) => heard.push(delivery.id));
      const [first, second] = [anAttempt("msg_a"), anAttempt("msg_b")];
      const bothHeard = nextDeliveries(log, 2);
      await log.add(waitingFor(anAttempt("msg_w")));
      await log.add(first);
      await log.add(second);
      expect(await bothHeard).toEqual([first.delivery, second.delivery]);
      unsubscribe();
      const laterHeard = nextDeliveries(log, 1);
      await log.add(anAttempt("msg_c"));
      await laterHeard;
      expect(heard).toEqual([first.delivery.id, second.delivery.id]);
    });

    it("forgets everything on clear", async () => {
      const log = await makeLog(10);
      await log.add(anAttempt("msg_a"));
      await log.clear();
      expect(await log.list({})).toEqual([]);
    });
  });
}
