// The outbox in memory: messages kept as JSON text in capture order, indexed by id and by recipient.

import type { CapturedMessage, MessageEvent } from "../../wire.js";
import {
  cutToBytes,
  matchesFilter,
  matchKeysOf,
  searchablePredicate,
  searchTextOf,
  waitForCapture,
  type SearchableKeys,
  type MessageFilter,
  type Outbox,
  type OutboxLimits,
} from "../../domain/outbox.js";
import { mayContain, signatureOf, type TextSignature } from "../../domain/text-signature.js";

/**
 * A captured message is kept as its JSON text: one flat string weighs a fraction of the
 * object graph, a list answer writes it without serializing again, and every reader gets
 * its own copy, so no caller can change what was captured.
 */
interface Entry extends SearchableKeys {
  id: string;
  /** Rules most messages out of a `q` search before their text is searched. */
  signature: TextSignature;
  json: string;
  bytes: number;
}

function entryOf(message: CapturedMessage): Entry {
  const json = JSON.stringify(message);
  const searchText = searchTextOf(message);
  return { ...matchKeysOf(message), searchText, signature: signatureOf(searchText), id: message.id, json, bytes: Buffer.byteLength(json) };
}

/** `searchablePredicate` with the signature test in front of the text search. */
function entryPredicate(filter: MessageFilter): ((entry: Entry) => boolean) | undefined {
  const predicate = searchablePredicate(filter);
  if (predicate === undefined || filter.q === undefined || filter.q === "") return predicate;
  const passes = mayContain(filter.q.toLowerCase());
  return (entry) => passes(entry.signature) && predicate(entry);
}

function messageOf(entry: Entry): CapturedMessage {
  return JSON.parse(entry.json) as CapturedMessage;
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

  /**
   * Takes one entry out from anywhere in the queue. A linear search and splice: deleting one
   * message is a rare admin call, and keeping adding and dropping O(1) matters more.
   */
  remove(entry: Entry): boolean {
    const index = this.entries.lastIndexOf(entry);
    if (index < this.oldest) return false;
    this.entries.splice(index, 1);
    return true;
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

export function createMemoryOutbox(options: OutboxLimits): Outbox {
  const { capacity, maxBytes = Number.MAX_SAFE_INTEGER, maxPageBytes = Number.MAX_SAFE_INTEGER } = options;
  let bytes = 0;
  let captured = new CaptureQueue();
  // Tests and the inbox mostly ask for one recipient's messages: answering those from a
  // queue per lowercased `to` keeps a list from touching every captured message.
  const byTo = new Map<string, CaptureQueue>();
  const byId = new Map<string, Entry>();
  const listeners = new Set<(message: CapturedMessage) => void>();
  const eventListeners = new Set<(message: CapturedMessage, event: MessageEvent) => void>();
  const clearListeners = new Set<() => void>();
  let dropped = 0;

  function findNewest(predicate: (keys: SearchableKeys) => boolean): CapturedMessage | undefined {
    for (const entry of captured.newestFirst()) if (predicate(entry)) return messageOf(entry);
    return undefined;
  }

  function select(filter: MessageFilter): { page: Entry[]; total: number } {
    const candidates = filter.to === undefined ? captured : (byTo.get(filter.to.toLowerCase()) ?? EMPTY_QUEUE);
    const limit = filter.limit ?? Number.POSITIVE_INFINITY;
    const predicate = entryPredicate(filter);
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

  function dropOldest(): string | undefined {
    const gone = captured.dropOldest();
    if (gone === undefined) return undefined;
    byId.delete(gone.id);
    bytes -= gone.bytes;
    const sameTo = byTo.get(gone.to);
    sameTo?.dropOldest();
    if (sameTo?.size === 0) byTo.delete(gone.to);
    dropped += 1;
    return gone.id;
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
      const droppedIds: string[] = [];
      while (captured.size > capacity || (bytes > maxBytes && captured.size > 1)) {
        const id = dropOldest();
        if (id !== undefined) droppedIds.push(id);
      }
      for (const listener of listeners) listener(message);
      return Promise.resolve({ dropped: droppedIds });
    },

    recordEvent(id, event, status) {
      const entry = byId.get(id);
      if (entry === undefined) return Promise.resolve(undefined);
      const message = messageOf(entry);
      message.events.push(event);
      message.status = status;
      // The entry is shared by the capture queue and its recipient's queue: changed in place.
      entry.json = JSON.stringify(message);
      const before = entry.bytes;
      entry.bytes = Buffer.byteLength(entry.json);
      bytes += entry.bytes - before;
      entry.status = status;
      for (const listener of eventListeners) listener(messageOf(entry), event);
      return Promise.resolve(message);
    },

    list(filter = {}) {
      const { page, total } = select(filter);
      return Promise.resolve({ messages: page.map(messageOf), total });
    },

    listSerialized(filter = {}) {
      const { page, total } = select(filter);
      const { kept, truncated } = cutToBytes(
        page.map((entry) => entry.json),
        maxPageBytes,
      );
      return Promise.resolve({ messages: kept, total, truncated });
    },

    get(id) {
      const entry = id === "latest" ? captured.latest() : byId.get(id);
      return Promise.resolve(entry === undefined ? undefined : messageOf(entry));
    },

    delete(id) {
      const entry = id === "latest" ? captured.latest() : byId.get(id);
      if (entry === undefined) return Promise.resolve(undefined);
      captured.remove(entry);
      byId.delete(entry.id);
      bytes -= entry.bytes;
      const sameTo = byTo.get(entry.to);
      sameTo?.remove(entry);
      if (sameTo?.size === 0) byTo.delete(entry.to);
      return Promise.resolve(entry.id);
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
          const onEvent = (message: CapturedMessage): void => listener(message);
          listeners.add(listener);
          eventListeners.add(onEvent);
          return () => {
            listeners.delete(listener);
            eventListeners.delete(onEvent);
          };
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

    onEvent(listener) {
      eventListeners.add(listener);
      return () => eventListeners.delete(listener);
    },

    onClear(listener) {
      clearListeners.add(listener);
      return () => clearListeners.delete(listener);
    },
  };
}
