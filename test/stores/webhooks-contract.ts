// What every store of webhooks and of their delivery attempts promises, whichever keeps them:
// the start-up webhooks first and back on reset, the limit, disabling; attempts newest first,
// filtered, bounded, and told to listeners as they are recorded.

import { describe, expect, it } from "vitest";
import { newWebhook, type DeliveryLog, type StoredDelivery, type WebhookStore } from "../../src/domain/webhooks.js";
import type { Webhook, WebhookDelivery } from "../../src/wire.js";

export type MakeWebhookStore = (startUp: readonly Webhook[]) => Promise<WebhookStore>;
export type MakeDeliveryLog = (capacity: number) => Promise<DeliveryLog>;

export function aWebhook(url = "http://127.0.0.1:3000/hooks"): Webhook {
  return newWebhook({ url });
}

let attempts = 0;

/** A recorded attempt of `messageId` to `webhookId`, with an id of its own. */
export function anAttempt(messageId: string, webhookId = "wh_1"): StoredDelivery {
  attempts += 1;
  return {
    delivery: {
      id: `whd_${attempts}`,
      webhook_id: webhookId,
      event_id: `evt_${attempts}`,
      event_type: "message.sent",
      message_id: messageId,
      attempt: 1,
      status: 200,
      error: null,
      duration_ms: 1,
      at: "2026-11-22T09:26:00.000Z",
      next_attempt_at: null,
    },
    body: `{"n":${attempts}}`,
  };
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
      for (const attempt of [first, second, third]) await log.record(attempt);
      expect(await log.list({})).toEqual([third.delivery, second.delivery, first.delivery]);
      expect(await log.list({ messageId: "msg_a" })).toEqual([third.delivery, first.delivery]);
      expect(await log.list({ webhookId: "wh_1" })).toEqual([second.delivery, first.delivery]);
      expect(await log.list({ messageId: "msg_a", webhookId: "wh_1" })).toEqual([first.delivery]);
      expect(await log.list({ limit: 1 })).toEqual([third.delivery]);
    });

    it("finds an attempt with its body by id", async () => {
      const log = await makeLog(100);
      const attempt = anAttempt("msg_a");
      await log.record(attempt);
      expect(await log.get(attempt.delivery.id)).toEqual(attempt);
      expect(await log.get("whd_nope")).toBeUndefined();
    });

    it("keeps the newest `capacity` attempts", async () => {
      const log = await makeLog(3);
      const recorded = Array.from({ length: 5 }, () => anAttempt("msg_a"));
      for (const attempt of recorded) await log.record(attempt);
      expect(await log.list({})).toEqual(
        recorded
          .slice(2)
          .reverse()
          .map((attempt) => attempt.delivery),
      );
      expect(await log.get(recorded[0]?.delivery.id ?? "")).toBeUndefined();
    });

    it("tells its listeners each attempt as it is recorded, until they unsubscribe", async () => {
      const log = await makeLog(10);
      const heard: string[] = [];
      const unsubscribe = log.onRecord((delivery) => heard.push(delivery.id));
      const [first, second] = [anAttempt("msg_a"), anAttempt("msg_b")];
      const bothHeard = nextDeliveries(log, 2);
      await log.record(first);
      await log.record(second);
      expect(await bothHeard).toEqual([first.delivery, second.delivery]);
      unsubscribe();
      const laterHeard = nextDeliveries(log, 1);
      await log.record(anAttempt("msg_c"));
      await laterHeard;
      expect(heard).toEqual([first.delivery.id, second.delivery.id]);
    });

    it("forgets everything on clear", async () => {
      const log = await makeLog(10);
      await log.record(anAttempt("msg_a"));
      await log.clear();
      expect(await log.list({})).toEqual([]);
    });
  });
}
