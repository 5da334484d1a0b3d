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

/** A page of messages, each as the JSON text it is stored as. */
export interface SerializedMessageList {
  messages: string[];
  total: number;
  /** True when the page stopped at `maxPageBytes` before `limit`. */
  truncated: boolean;
}

/** What bounds an outbox: messages kept, bytes kept, bytes in one page. */
export interface OutboxLimits {
  capacity: number;
  /** The JSON of kept messages, in UTF-8 bytes; past it the oldest go (the newest always stays). No bound when left out. */
  maxBytes?: number;
  /** One page of a list, in bytes: V8 cannot build a string past 512 MB. No bound when left out. */
  maxPageBytes?: number;
}

/** The newest-first texts that fit in `maxBytes` (the first always does); whether some were left out. */
export function cutToBytes(texts: readonly string[], maxBytes: number): { kept: string[]; truncated: boolean } {
  const kept: string[] = [];
  let bytes = 0;
  for (const text of texts) {
    bytes += Buffer.byteLength(text);
    if (kept.length > 0 && bytes > maxBytes) return { kept, truncated: true };
    kept.push(text);
  }
  return { kept, truncated: false };
}

export interface WaitOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface OutboxStats {
  count: number;
  capacity: number;
  /** UTF-8 bytes of the kept messages' JSON. */
  bytes: number;
  maxBytes: number;
  /** Messages dropped because the outbox was full (by count or by bytes). */
  dropped: number;
}

/**
 * Where accepted messages go. Every call is asynchronous so that a store shared by several
 * replicas can stand in for the in-memory one.
 */
export interface Outbox {
  add(message: CapturedMessage): Promise<void>;
  list(filter?: MessageFilter): Promise<MessageList>;
  /** `list` without parsing: an answer can write the stored text as it is. */
  listSerialized(filter?: MessageFilter): Promise<SerializedMessageList>;
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
export interface MatchKeys {
  to: string;
  recipients: string[];
  templateId: string;
  subject: string;
  createdAtMs: number;
}

/**
 * A captured message is kept as its JSON text: one flat string weighs a fraction of the
 * object graph, a list answer writes it without serializing again, and every reader gets
 * its own copy, so no caller can change what was captured.
 */
interface Entry extends MatchKeys {
  id: string;
  json: string;
  bytes: number;
}

export function matchKeysOf(message: CapturedMessage): MatchKeys {
  const to = message.to.toLowerCase();
  return {
    to,
    recipients: [to, ...message.cc.map((address) => address.toLowerCase()), ...message.bcc.map((address) => address.toLowerCase())],
    templateId: message.template_id,
    subject: message.subject.toLowerCase(),
    createdAtMs: Date.parse(message.created_at),
  };
}

function entryOf(message: CapturedMessage): Entry {
  const json = JSON.stringify(message);
  return { ...matchKeysOf(message), id: message.id, json, bytes: Buffer.byteLength(json) };
}

function messageOf(entry: Entry): CapturedMessage {
  return JSON.parse(entry.json) as CapturedMessage;
}

/**
 * Compiles what a filter asks beyond `to` into one predicate, or undefined when it asks
 * nothing more: `to` is answered by the per-recipient index, so such a list needs no scan.
 */
export function predicateBeyondTo(filter: MessageFilter): ((keys: MatchKeys) => boolean) | undefined {
  const recipient = filter.recipient?.toLowerCase();
  const subject = filter.subject?.toLowerCase();
  const since = filter.since === undefined ? undefined : new Date(filter.since).getTime();
  const { templateId } = filter;
  if (recipient === undefined && subject === undefined && since === undefined && templateId === undefined) return undefined;
  return (keys) =>
    (recipient === undefined || keys.recipients.includes(recipient)) &&
    (templateId === undefined || keys.templateId === templateId) &&
    (subject === undefined || keys.subject.includes(subject)) &&
    (since === undefined || keys.createdAtMs >= since);
}

function matchesFilter(filter: MessageFilter): (keys: MatchKeys) => boolean {
  const to = filter.to?.toLowerCase();
  const rest = predicateBeyondTo(filter);
  return (keys) => (to === undefined || keys.to === to) && (rest === undefined || rest(keys));
}

/**
 * Entries in capture order. The oldest leave one at a time and the array is cut once half of
 * it is spent, so that both adding and dropping stay O(1) amortized.
 */
class CaptureQueue {
  private entries: (Entry | undefined)[] = [];
  private oldest = 0;

  get size(): number {
    return this.entries.length - this.oldest;
  }

  push(entry: Entry): void {
    this.entries.push(entry);
  }

  dropOldest(): Entry | undefined {
    const entry = this.entries[this.oldest];
    if (entry === undefined) return undefined;
    // Cleared at once so that a dropped message is garbage before the next cut.
    this.entries[this.oldest] = undefined;
    this.oldest += 1;
    if (this.oldest * 2 >= this.entries.length) {
      this.entries = this.entries.slice(this.oldest);
      this.oldest = 0;
    }
    return entry;
  }

  latest(): Entry | undefined {
    return this.size > 0 ? this.entries.at(-1) : undefined;
  }

  *newestFirst(): Generator<Entry> {
    for (let index = this.entries.length - 1; index >= this.oldest; index -= 1) yield this.entries[index] as Entry;
  }

  /** The newest `count` entries, newest first. */
  newest(count: number): Entry[] {
    const page: Entry[] = [];
    for (let index = this.entries.length - 1; index >= this.oldest && page.length < count; index -= 1) page.push(this.entries[index] as Entry);
    return page;
  }
}

const EMPTY_QUEUE = new CaptureQueue();

function describeFilter(filter: MessageFilter): string {
  const parts = Object.entries(filter).filter(([key, value]) => key !== "limit" && value !== undefined);
  const shown = (value: unknown): string => (value instanceof Date ? value.toISOString() : String(value));
  return parts.length === 0 ? "message" : `message with ${parts.map(([key, value]) => `${key}=${shown(value)}`).join(", ")}`;
}

/**
 * Resolves with the newest message matching `filter`, already captured or captured within the
 * timeout. It listens before it looks, so a capture between the two is never missed, whatever
 * the store's latency.
 */
export function waitForCapture(parts: {
  filter: MessageFilter;
  options: WaitOptions;
  subscribe: (listener: (message: CapturedMessage) => void) => () => void;
  findNow: () => Promise<CapturedMessage | undefined>;
  count: () => Promise<number>;
}): Promise<CapturedMessage> {
  const { filter, options } = parts;
  const predicate = matchesFilter(filter);
  const timeoutMs = options.timeoutMs ?? DEFAULT_WAIT_MS;
  return new Promise<CapturedMessage>((resolve, reject) => {
    let settled = false;
    const finish = (settle: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      unsubscribe();
      options.signal?.removeEventListener("abort", onAbort);
      settle();
    };
    const onAbort = (): void => {
      finish(() => {
        reject(options.signal?.reason instanceof Error ? options.signal.reason : new Error("wait aborted"));
      });
    };
    const timer = setTimeout(() => {
      void parts.count().then(
        (count) => `${count} captured`,
        () => "count unknown",
      ).then((counted) => {
        finish(() => {
          reject(new WaitTimeoutError(`no ${describeFilter(filter)} was captured within ${timeoutMs} ms (${counted})`));
        });
      });
    }, timeoutMs);
    const unsubscribe = parts.subscribe((message) => {
      if (predicate(matchKeysOf(message))) finish(() => {
        resolve(message);
      });
    });
    if (options.signal?.aborted === true) {
      onAbort();
      return;
    }
    options.signal?.addEventListener("abort", onAbort, { once: true });
    parts.findNow().then(
      (found) => {
        if (found) finish(() => {
          resolve(found);
        });
      },
      (error: unknown) => {
        finish(() => {
          reject(error instanceof Error ? error : new Error(String(error)));
        });
      },
    );
  });
}

export function createMemoryOutbox(options: OutboxLimits): Outbox {
  const { capacity, maxBytes = Number.MAX_SAFE_INTEGER, maxPageBytes = Number.MAX_SAFE_INTEGER } = options;
  let bytes = 0;
  let captured = new CaptureQueue();
  // Tests and the inbox mostly ask for one recipient's messages: answering those from a
  // queue per lowercased `to` keeps a list from touching every captured message.
  const byTo = new Map<string, CaptureQueue>();
  const byId = new Map<string, Entry>();
  const listeners = new Set<(message: CapturedMessage) => void>();
  const clearListeners = new Set<() => void>();
  let dropped = 0;

  function findNewest(predicate: (keys: MatchKeys) => boolean): CapturedMessage | undefined {
    for (const entry of captured.newestFirst()) if (predicate(entry)) return messageOf(entry);
    return undefined;
  }

  function select(filter: MessageFilter): { page: Entry[]; total: number } {
    const candidates = filter.to === undefined ? captured : (byTo.get(filter.to.toLowerCase()) ?? EMPTY_QUEUE);
    const limit = filter.limit ?? Number.POSITIVE_INFINITY;
    const predicate = predicateBeyondTo(filter);
    if (predicate === undefined) return { page: candidates.newest(limit), total: candidates.size };
    const page: Entry[] = [];
    let total = 0;
    for (const entry of candidates.newestFirst()) {
      if (!predicate(entry)) continue;
      total += 1;
      if (page.length < limit) page.push(entry);
    }
    return { page, total };
  }

  function dropOldest(): void {
    const gone = captured.dropOldest();
    if (gone === undefined) return;
    byId.delete(gone.id);
    bytes -= gone.bytes;
    const sameTo = byTo.get(gone.to);
    sameTo?.dropOldest();
    if (sameTo?.size === 0) byTo.delete(gone.to);
    dropped += 1;
  }

  return {
    add(message) {
      const entry = entryOf(message);
      captured.push(entry);
      let sameTo = byTo.get(entry.to);
      if (sameTo === undefined) {
        sameTo = new CaptureQueue();
        byTo.set(entry.to, sameTo);
      }
      sameTo.push(entry);
      byId.set(entry.id, entry);
      bytes += entry.bytes;
      // 900 KB messages under the count alone filled a default heap after ~900 sends.
      while (captured.size > capacity || (bytes > maxBytes && captured.size > 1)) dropOldest();
      for (const listener of listeners) listener(message);
      return Promise.resolve();
    },

    list(filter = {}) {
      const { page, total } = select(filter);
      return Promise.resolve({ messages: page.map(messageOf), total });
    },

    listSerialized(filter = {}) {
      const { page, total } = select(filter);
      const { kept, truncated } = cutToBytes(page.map((entry) => entry.json), maxPageBytes);
      return Promise.resolve({ messages: kept, total, truncated });
    },

    get(id) {
      const entry = id === "latest" ? captured.latest() : byId.get(id);
      return Promise.resolve(entry === undefined ? undefined : messageOf(entry));
    },

    clear() {
      captured = new CaptureQueue();
      byTo.clear();
      byId.clear();
      bytes = 0;
      dropped = 0;
      for (const listener of clearListeners) listener();
      return Promise.resolve();
    },

    waitFor(filter = {}, waitOptions = {}) {
      const predicate = matchesFilter(filter);
      return waitForCapture({
        filter,
        options: waitOptions,
        subscribe: (listener) => {
          listeners.add(listener);
          return () => listeners.delete(listener);
        },
        findNow: () => Promise.resolve(findNewest(predicate)),
        count: () => Promise.resolve(captured.size),
      });
    },

    stats() {
      return Promise.resolve({ count: captured.size, capacity, bytes, maxBytes, dropped });
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
