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

/** Compiles a filter once into a predicate. */
export function matchesFilter(filter: MessageFilter): (message: CapturedMessage) => boolean {
  const to = filter.to?.toLowerCase();
  const recipient = filter.recipient?.toLowerCase();
  const subject = filter.subject?.toLowerCase();
  const since = filter.since === undefined ? undefined : new Date(filter.since).getTime();
  const { templateId } = filter;
  return (message) =>
    (to === undefined || message.to.toLowerCase() === to) &&
    (recipient === undefined || [message.to, ...message.cc, ...message.bcc].some((address) => address.toLowerCase() === recipient)) &&
    (templateId === undefined || message.template_id === templateId) &&
    (subject === undefined || message.subject.toLowerCase().includes(subject)) &&
    (since === undefined || Date.parse(message.created_at) >= since);
}

function describeFilter(filter: MessageFilter): string {
  const parts = Object.entries(filter).filter(([key, value]) => key !== "limit" && value !== undefined);
  return parts.length === 0 ? "any message" : `a message with ${parts.map(([key, value]) => `${key}=${String(value)}`).join(", ")}`;
}

export function createMemoryOutbox(options: { capacity: number }): Outbox {
  const { capacity } = options;
  // Insertion order is capture order, so the first key is always the oldest.
  const messages = new Map<string, CapturedMessage>();
  const listeners = new Set<(message: CapturedMessage) => void>();
  const clearListeners = new Set<() => void>();
  let newest: CapturedMessage | undefined;
  let dropped = 0;

  function newestFirst(): CapturedMessage[] {
    return [...messages.values()].reverse();
  }

  function findNewest(predicate: (message: CapturedMessage) => boolean): CapturedMessage | undefined {
    return newestFirst().find(predicate);
  }

  return {
    add(message) {
      messages.set(message.id, message);
      newest = message;
      while (messages.size > capacity) {
        const oldest = messages.keys().next();
        if (oldest.done === true) break;
        messages.delete(oldest.value);
        dropped += 1;
      }
      for (const listener of listeners) listener(message);
      return Promise.resolve();
    },

    list(filter = {}) {
      const predicate = matchesFilter(filter);
      const limit = filter.limit ?? Number.POSITIVE_INFINITY;
      const page: CapturedMessage[] = [];
      let total = 0;
      for (const message of newestFirst()) {
        if (!predicate(message)) continue;
        total += 1;
        if (page.length < limit) page.push(message);
      }
      return Promise.resolve({ messages: page, total });
    },

    get(id) {
      if (id === "latest") return Promise.resolve(newest && messages.has(newest.id) ? newest : undefined);
      return Promise.resolve(messages.get(id));
    },

    clear() {
      messages.clear();
      newest = undefined;
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
          if (!predicate(message)) return;
          stop();
          resolve(message);
        };
        const onAbort = (): void => {
          stop();
          reject(waitOptions.signal?.reason instanceof Error ? waitOptions.signal.reason : new Error("wait aborted"));
        };
        const timer = setTimeout(() => {
          stop();
          reject(new WaitTimeoutError(`no ${describeFilter(filter)} was captured within ${timeoutMs} ms (${messages.size} captured)`));
        }, timeoutMs);
        listeners.add(onMessage);
        if (waitOptions.signal?.aborted === true) onAbort();
        else waitOptions.signal?.addEventListener("abort", onAbort, { once: true });
      });
    },

    stats() {
      return Promise.resolve({ count: messages.size, capacity, dropped });
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
