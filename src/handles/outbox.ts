// `mock.outbox` and `mock.journal`: what a send captured and recorded, read as GET /_mock/messages and /_mock/requests read it, each input checked as they check it.

import type { Contract } from "../contract/load.js";
import type { Journal } from "../domain/journal.js";
import type { MessageFilter, Outbox, WaitOptions } from "../domain/outbox.js";
import { checkable, type CheckableMessage, type ChecksOptions } from "../checkable-message.js";
import { ApiError } from "../errors.js";
import type { MessageChecksView } from "../http/message-checks.js";
import type { CapturedMessage, MessageList } from "../wire.js";
import { messageFilterOf } from "../http/admin/messages.js";
import { queryFlag, queryNumber } from "../http/admin/params.js";
import { routeCheck } from "./route-checks.js";

/**
 * The captured messages: `waitFor`, `list`, `get`, `delete`, `clear`, `stats`, `checks` and the listeners.
 * A filter's fields and a wait's `timeoutMs` are checked as GET /_mock/messages checks its query
 * (`limit` 1 to 10000, `timeoutMs` as `wait_ms` up to 60000, `since` a date and time, ...). Each
 * message it gives has `checks()`, not enumerable: it is no part of the message's JSON.
 */
export interface OutboxHandle extends Pick<Outbox, "delete" | "clear" | "stats" | "onCapture" | "onEvent" | "onClear"> {
  waitFor(filter?: MessageFilter, options?: WaitOptions): Promise<CheckableMessage>;
  list(filter?: MessageFilter): Promise<Omit<MessageList, "messages"> & { messages: CheckableMessage[] }>;
  get(id: string): Promise<CheckableMessage | undefined>;
  /** The named checks of the message `id` (`latest`: the newest), as `GET /_mock/messages/{id}/checks` gives them. */
  checks(id: string, options?: ChecksOptions): Promise<MessageChecksView>;
}

/** Runs the checks of a message: the mock's settings say which spamd and which hosts. */

export type MessageChecker = (message: CapturedMessage, online: boolean) => Promise<MessageChecksView>;

/** The journal of every request to /send, newest first: `list({limit})`, `clear`, `onRecord`. */
export type JournalHandle = Pick<Journal, "list" | "clear" | "onRecord">;

export function createOutboxHandle(outbox: Outbox, contract: Contract, checkMessage: MessageChecker): OutboxHandle {
  const listing = routeCheck(contract, "get", "/_mock/messages", { template_id: "templateId", wait_ms: "timeoutMs" });
  const reading = routeCheck(contract, "get", "/_mock/messages/{id}");
  const deleting = routeCheck(contract, "delete", "/_mock/messages/{id}");
  const checking = routeCheck(contract, "get", "/_mock/messages/{id}/checks");
  const withChecks = (message: CapturedMessage): CheckableMessage =>
    checkable(message, (options) => checkMessage(message, queryFlag(checking.check({ query: options, params: { id: message.id } }).query, "online")));
  return {
    async waitFor(filter = {}, options = {}) {
      const { query } = listing.check({ query: { ...filter, timeoutMs: options.timeoutMs } });
      return withChecks(await outbox.waitFor(messageFilterOf(query), { timeoutMs: queryNumber(query, "wait_ms"), signal: options.signal }));
    },
    async list(filter = {}) {
      const page = await outbox.list(messageFilterOf(listing.check({ query: filter }).query));
      return { ...page, messages: page.messages.map(withChecks) };
    },
    async get(id) {
      const message = await outbox.get(reading.id(id));
      return message === undefined ? undefined : withChecks(message);
    },
    async checks(id, options = {}) {
      const online = queryFlag(checking.check({ query: options, params: { id } }).query, "online");
      const message = await outbox.get(checking.id(id));
      if (message === undefined) throw new ApiError("not_found", `No captured message with id ${JSON.stringify(id)}`);
      return checkMessage(message, online);
    },
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
