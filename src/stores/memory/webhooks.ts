// Webhooks and their delivery attempts in memory: one mock's own.

import type { DeliveryLog, StoredDelivery, WebhookStore } from "../../domain/webhooks.js";
import { selectDeliveries } from "../../domain/webhooks.js";
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

/** Attempts newest last in an array, the oldest dropped past `capacity`. */
export function createMemoryDeliveryLog(capacity: number): DeliveryLog {
  let attempts: StoredDelivery[] = [];
  const listeners = new Set<(delivery: WebhookDelivery) => void>();
  return {
    record(attempt) {
      attempts.push(attempt);
      // Cut in chunks, so that recording stays O(1) amortised.
      if (attempts.length >= capacity * 2 || attempts.length > capacity + 1024) attempts = attempts.slice(-capacity);
      for (const listener of listeners) listener(attempt.delivery);
      return Promise.resolve();
    },
    list(filter) {
      return Promise.resolve(selectDeliveries(attempts.slice(-capacity).reverse(), filter));
    },
    get(id) {
      return Promise.resolve(attempts.slice(-capacity).find((attempt) => attempt.delivery.id === id));
    },
    clear() {
      attempts = [];
      return Promise.resolve();
    },
    onRecord(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
