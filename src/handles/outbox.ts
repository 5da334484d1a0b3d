// `mock.outbox` and `mock.journal`: what a send captured and recorded, read as GET /_mock/messages and /_mock/requests read it, each input checked as they check it.

import type { Contract } from "../contract/load.js";
import type { Journal } from "../domain/journal.js";
import type { Outbox } from "../domain/outbox.js";
import { messageFilterOf } from "../http/admin/messages.js";
import { queryNumber } from "../http/admin/params.js";
import { routeCheck } from "./route-checks.js";

/**
 * The captured messages: `waitFor`, `list`, `get`, `delete`, `clear`, `stats` and the listeners.
 * A filter's fields and a wait's `timeoutMs` are checked as GET /_mock/messages checks its query
 * (`limit` 1 to 10000, `timeoutMs` as `wait_ms` up to 60000, `since` a date and time, ...).
 */
export type OutboxHandle = Pick<Outbox, "waitFor" | "list" | "get" | "delete" | "clear" | "stats" | "onCapture" | "onEvent" | "onClear">;

/** The journal of every request to /send, newest first: `list({limit})`, `clear`, `onRecord`. */
export type JournalHandle = Pick<Journal, "list" | "clear" | "onRecord">;

export function createOutboxHandle(outbox: Outbox, contract: Contract): OutboxHandle {
  const listing = routeCheck(contract, "get", "/_mock/messages", { template_id: "templateId", wait_ms: "timeoutMs" });
  const reading = routeCheck(contract, "get", "/_mock/messages/{id}");
  const deleting = routeCheck(contract, "delete", "/_mock/messages/{id}");
  return {
    async waitFor(filter = {}, options = {}) {
      const { query } = listing.check({ query: { ...filter, timeoutMs: options.timeoutMs } });
      return outbox.waitFor(messageFilterOf(query), { timeoutMs: queryNumber(query, "wait_ms"), signal: options.signal });
    },
    list: async (filter = {}) => outbox.list(messageFilterOf(listing.check({ query: filter }).query)),
    get: async (id) => outbox.get(reading.id(id)),
    delete: async (id) => outbox.delete(deleting.id(id)),
    clear: () => outbox.clear(),
    stats: () => outbox.stats(),
    onCapture: (listener) => outbox.onCapture(listener),
    onEvent: (listener) => outbox.onEvent(listener),
    onClear: (listener) => outbox.onClear(listener),
  };
}

export function createJournalHandle(journal: Journal, contract: Contract): JournalHandle {
  const listing = routeCheck(contract, "get", "/_mock/requests");
  return {
    list: async (options = {}) => journal.list({ limit: queryNumber(listing.check({ query: options }).query, "limit") }),
    clear: () => journal.clear(),
    onRecord: (listener) => journal.onRecord(listener),
  };
}
