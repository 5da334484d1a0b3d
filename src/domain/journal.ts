// The request journal: every request to the send API and its outcome, newest first, bounded.

import type { JournalEntry, JournalList } from "../wire.js";

/** Asynchronous, like the outbox, so a shared store can stand in for the in-memory one. */
export interface Journal {
  record(entry: JournalEntry): Promise<void>;
  list(options?: { limit?: number }): Promise<JournalList>;
  clear(): Promise<void>;
  /** Calls `listener` for every entry recorded from now on; returns the unsubscribe. */
  onRecord(listener: (entry: JournalEntry) => void): () => void;
}

export function createMemoryJournal(options: { capacity: number }): Journal {
  const entries: JournalEntry[] = [];
  const listeners = new Set<(entry: JournalEntry) => void>();
  // Trimming in batches keeps `record` O(1) amortised instead of shifting on every call.
  const trimAt = options.capacity + Math.max(16, Math.ceil(options.capacity / 8));

  function keptEntries(): JournalEntry[] {
    return entries.length > options.capacity ? entries.slice(entries.length - options.capacity) : entries;
  }

  return {
    record(entry) {
      entries.push(entry);
      if (entries.length >= trimAt) entries.splice(0, entries.length - options.capacity);
      for (const listener of listeners) listener(entry);
      return Promise.resolve();
    },

    list({ limit = Number.POSITIVE_INFINITY } = {}) {
      const kept = keptEntries();
      const page = kept.slice(Math.max(0, kept.length - limit)).reverse();
      return Promise.resolve({ requests: page, total: kept.length });
    },

    clear() {
      entries.length = 0;
      return Promise.resolve();
    },

    onRecord(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
