// Captured messages: add, filter, fetch, clear, wait for a match; bounded by a capacity.

import type { CapturedMessage, MessageList } from "../wire.js";

export interface MessageFilter {
  /** Exact recipient (`to`), case-insensitive. */
  to?: string;
  /** Any of to, cc or bcc, case-insensitive. */
  recipient?: string;
  templateId?: string;
  /** Case-insensitive substring of the subject. */
  subject?: string;
  /** Messages created at or after this time. */
  since?: Date | string;
  /** At most this many (newest first); `total` still counts every match. */
  limit?: number;
}

export interface WaitOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface OutboxStats {
  count: number;
  capacity: number;
  /** Messages dropped because the outbox was full. */
  dropped: number;
}

/**
 * Where accepted messages go. Every call is asynchronous so that a store shared by several
 * replicas can stand in for the in-memory one.
 */
export interface Outbox {
  add(message: CapturedMessage): Promise<void>;
  list(filter?: MessageFilter): Promise<MessageList>;
  /** One message by id; `latest` is the newest. */
  get(id: string): Promise<CapturedMessage | undefined>;
  clear(): Promise<void>;
  /** Resolves with the newest match, waiting for one to be captured; rejects after `timeoutMs`. */
  waitFor(filter?: MessageFilter, options?: WaitOptions): Promise<CapturedMessage>;
  stats(): Promise<OutboxStats>;
  /** Calls `listener` for every message captured from now on; returns the unsubscribe. */
  onCapture(listener: (message: CapturedMessage) => void): () => void;
  /** Calls `listener` after every `clear`; returns the unsubscribe. */
  onClear(listener: () => void): () => void;
}

export class WaitTimeoutError extends Error {
  override name = "WaitTimeoutError";
}

export const DEFAULT_WAIT_MS = 5000;

/** What a filter compares, computed once when a message is captured rather than on every list. */
interface Entry {
  message: CapturedMessage;
  to: string;
  recipients: string[];
  subject: string;
  createdAtMs: number;
}

function entryOf(message: CapturedMessage): Entry {
  const to = message.to.toLowerCase();
  return {
    message,
    to,
    recipients: [to, ...message.cc.map((address) => address.toLowerCase()), ...message.bcc.map((address) => address.toLowerCase())],
    subject: message.subject.toLowerCase(),
    createdAtMs: Date.parse(message.created_at),
  };
}

/** Compiles a filter once into a predicate. */
function matchesFilter(filter: MessageFilter): (entry: Entry) => boolean {
  const to = filter.to?.toLowerCase();
  const recipient = filter.recipient?.toLowerCase();
  const subject = filter.subject?.toLowerCase();
  const since = filter.since === undefined ? undefined : new Date(filter.since).getTime();
  const { templateId } = filter;
  return (entry) =>
    (to === undefined || entry.to === to) &&
    (recipient === undefined || entry.recipients.includes(recipient)) &&
    (templateId === undefined || entry.message.template_id === templateId) &&
    (subject === undefined || entry.subject.includes(subject)) &&
    (since === undefined || entry.createdAtMs >= since);
}

function describeFilter(filter: MessageFilter): string {
  const parts = Object.entries(filter).filter(([key, value]) => key !== "limit" && value !== undefined);
  return parts.length === 0 ? "any message" : `a message with ${parts.map(([key, value]) => `${key}=${String(value)}`).join(", ")}`;
}

export function createMemoryOutbox(options: { capacity: number }): Outbox {
  const { capacity } = options;
  // Capture order, oldest first; dropped entries are cut off in batches so adding stays O(1).
  let entries: Entry[] = [];
  let oldest = 0;
  const byId = new Map<string, Entry>();
  const listeners = new Set<(message: CapturedMessage) => void>();
  const clearListeners = new Set<() => void>();
  let dropped = 0;

  function* newestFirst(): Generator<Entry> {
    for (let index = entries.length - 1; index >= oldest; index -= 1) yield entries[index] as Entry;
  }

  function findNewest(predicate: (entry: Entry) => boolean): CapturedMessage | undefined {
    for (const entry of newestFirst()) if (predicate(entry)) return entry.message;
    return undefined;
  }

  return {
    add(message) {
      const entry = entryOf(message);
      entries.push(entry);
      byId.set(message.id, entry);
      if (entries.length - oldest > capacity) {
        byId.delete((entries[oldest] as Entry).message.id);
        oldest += 1;
        dropped += 1;
        if (oldest > capacity) {
          entries = entries.slice(oldest);
          oldest = 0;
        }
      }
      for (const listener of listeners) listener(message);
      return Promise.resolve();
    },

    list(filter = {}) {
      const predicate = matchesFilter(filter);
      const limit = filter.limit ?? Number.POSITIVE_INFINITY;
      const page: CapturedMessage[] = [];
      let total = 0;
      for (const entry of newestFirst()) {
        if (!predicate(entry)) continue;
        total += 1;
        if (page.length < limit) page.push(entry.message);
      }
      return Promise.resolve({ messages: page, total });
    },

    get(id) {
      if (id === "latest") return Promise.resolve(entries.length > oldest ? (entries.at(-1) as Entry).message : undefined);
      return Promise.resolve(byId.get(id)?.message);
    },

    clear() {
      entries = [];
      oldest = 0;
      byId.clear();
      dropped = 0;
      for (const listener of clearListeners) listener();
      return Promise.resolve();
    },

    waitFor(filter = {}, waitOptions = {}) {
      const predicate = matchesFilter(filter);
      const already = findNewest(predicate);
      if (already) return Promise.resolve(already);
      const timeoutMs = waitOptions.timeoutMs ?? DEFAULT_WAIT_MS;
      return new Promise<CapturedMessage>((resolve, reject) => {
        const stop = (): void => {
          clearTimeout(timer);
          listeners.delete(onMessage);
          waitOptions.signal?.removeEventListener("abort", onAbort);
        };
        const onMessage = (message: CapturedMessage): void => {
          if (!predicate(entryOf(message))) return;
          stop();
          resolve(message);
        };
        const onAbort = (): void => {
          stop();
          reject(waitOptions.signal?.reason instanceof Error ? waitOptions.signal.reason : new Error("wait aborted"));
        };
        const timer = setTimeout(() => {
          stop();
          reject(new WaitTimeoutError(`no ${describeFilter(filter)} was captured within ${timeoutMs} ms (${entries.length - oldest} captured)`));
        }, timeoutMs);
        listeners.add(onMessage);
        if (waitOptions.signal?.aborted === true) onAbort();
        else waitOptions.signal?.addEventListener("abort", onAbort, { once: true });
      });
    },

    stats() {
      return Promise.resolve({ count: entries.length - oldest, capacity, dropped });
    },

    onCapture(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },

    onClear(listener) {
      clearListeners.add(listener);
      return () => clearListeners.delete(listener);
    },
  };
}
