// Webhooks and their delivery attempts in memory: one mock's own.

import type { DeliveryLog, StoredDelivery, WebhookStore } from "../../domain/webhooks.js";
import { attemptKeyOf, isWaiting, selectDeliveries } from "../../domain/webhooks.js";
import type { Webhook, WebhookDelivery } from "../../wire.js";

export function createMemoryWebhookStore(startUp: readonly Webhook[]): WebhookStore {
  let webhooks = startUp.map((webhook) => ({ ...webhook }));
  return {
    list: () => Promise.resolve(webhooks.map((webhook) => ({ ...webhook }))),
    get(id) {
      const found = webhooks.find((webhook) => webhook.id === id);
      return Promise.resolve(found && { ...found });
    },
    add(webhook, limit) {
      if (webhooks.length >= limit) return Promise.resolve(false);
      webhooks.push({ ...webhook });
      return Promise.resolve(true);
    },
    remove(id) {
      const before = webhooks.length;
      webhooks = webhooks.filter((webhook) => webhook.id !== id);
      return Promise.resolve(webhooks.length < before);
    },
    disable(id) {
      webhooks = webhooks.map((webhook) => (webhook.id === id ? { ...webhook, enabled: false } : webhook));
      return Promise.resolve();
    },
    reset() {
      webhooks = startUp.map((webhook) => ({ ...webhook }));
      return Promise.resolve();
    },
  };
}

/**
 * Attempts newest last in an array, the oldest dropped past `capacity`; by id, to settle one in its
 * place; and per attempt key the highest number listed and how many are, to number the next.
 */
export function createMemoryDeliveryLog(capacity: number): DeliveryLog {
  let attempts: (StoredDelivery | undefined)[] = [];
  let oldest = 0;
  const byId = new Map<string, StoredDelivery>();
  const numbers = new Map<string, { highest: number; listed: number }>();
  const listeners = new Set<(delivery: WebhookDelivery) => void>();

  const tell = (delivery: WebhookDelivery): void => {
    for (const listener of listeners) listener(delivery);
  };

  function dropOldest(): void {
    const gone = attempts[oldest];
    attempts[oldest] = undefined;
    oldest += 1;
    // Cut once half is spent, so that adding stays O(1) amortised.
    if (oldest * 2 >= attempts.length) {
      attempts = attempts.slice(oldest);
      oldest = 0;
    }
    if (gone === undefined) return;
    byId.delete(gone.delivery.id);
    const key = attemptKeyOf(gone);
    const counted = numbers.get(key);
    if (counted !== undefined && --counted.listed === 0) numbers.delete(key);
  }

  function* newestFirst(): Generator<StoredDelivery> {
    for (let index = attempts.length - 1; index >= oldest; index -= 1) {
      const attempt = attempts[index];
      if (attempt !== undefined) yield attempt;
    }
  }

  return {
    add(attempt) {
      const key = attemptKeyOf(attempt);
      const counted = numbers.get(key) ?? { highest: 0, listed: 0 };
      const number = Math.max(attempt.delivery.attempt, counted.highest + 1);
      const listed: StoredDelivery = { ...attempt, delivery: { ...attempt.delivery, attempt: number } };
      numbers.set(key, { highest: number, listed: counted.listed + 1 });
      attempts.push(listed);
      byId.set(listed.delivery.id, listed);
      while (attempts.length - oldest > capacity) dropOldest();
      if (!isWaiting(listed.delivery)) tell(listed.delivery);
      return Promise.resolve(listed.delivery);
    },
    settle(delivery) {
      const listed = byId.get(delivery.id);
      if (listed === undefined) return Promise.resolve();
      // In place: the entry is the one the array holds.
      listed.delivery = { ...delivery, attempt: listed.delivery.attempt };
      tell(listed.delivery);
      return Promise.resolve();
    },
    list(filter) {
      return Promise.resolve(selectDeliveries(newestFirst(), filter));
    },
    get(id) {
      const listed = byId.get(id);
      return Promise.resolve(listed && { ...listed });
    },
    clear() {
      attempts = [];
      oldest = 0;
      byId.clear();
      numbers.clear();
      return Promise.resolve();
    },
    onRecord(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
