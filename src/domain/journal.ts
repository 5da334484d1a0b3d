// The request journal: every request to the send API and its outcome, newest first, bounded.

import type { JournalEntry } from "../wire.js";
import { cutToBytes } from "./outbox.js";

/** A page of the journal; `truncated` is true when it stopped at `maxPageBytes` before `limit`. */
export interface JournalPage {
  requests: JournalEntry[];
  total: number;
  truncated: boolean;
}

/** Asynchronous, like the outbox, so a shared store can stand in for the in-memory one. */
export interface Journal {
  record(entry: JournalEntry): Promise<void>;
  list(options?: { limit?: number }): Promise<JournalPage>;
  clear(): Promise<void>;
  /** Calls `listener` for every entry recorded from now on; returns the unsubscribe. */
  onRecord(listener: (entry: JournalEntry) => void): () => void;
}

/** What bounds a journal: entries kept, bytes kept, bytes in one page. */
export interface JournalLimits {
  capacity: number;
  /** The JSON of kept entries, in UTF-8 bytes; no bound when left out. */
  maxBytes?: number;
  /** One page of a list, in bytes; no bound when left out. */
  maxPageBytes?: number;
}

export function createMemoryJournal(options: JournalLimits): Journal {
  const { capacity, maxBytes = Number.MAX_SAFE_INTEGER, maxPageBytes = Number.MAX_SAFE_INTEGER } = options;
  // Kept as JSON text with its size: the size is what the byte bound counts, and a list
  // answer parses only the page it returns.
  let entries: { json: string; bytes: number }[] = [];
  let oldest = 0;
  let bytes = 0;
  const listeners = new Set<(entry: JournalEntry) => void>();

  return {
    record(entry) {
      const json = JSON.stringify(entry);
      entries.push({ json, bytes: Buffer.byteLength(json) });
      bytes += entries.at(-1)?.bytes ?? 0;
      while (entries.length - oldest > capacity || (bytes > maxBytes && entries.length - oldest > 1)) {
        bytes -= entries[oldest]?.bytes ?? 0;
        oldest += 1;
      }
      // Cut once half the array is spent, so that recording stays O(1) amortised.
      if (oldest * 2 >= entries.length && oldest > 16) {
        entries = entries.slice(oldest);
        oldest = 0;
      }
      for (const listener of listeners) listener(entry);
      return Promise.resolve();
    },

    list({ limit = Number.POSITIVE_INFINITY } = {}) {
      const texts: string[] = [];
      for (let index = entries.length - 1; index >= oldest && texts.length < limit; index -= 1) texts.push(entries[index]?.json ?? "");
      const { kept, truncated } = cutToBytes(texts, maxPageBytes);
      return Promise.resolve({ requests: kept.map((json) => JSON.parse(json) as JournalEntry), total: entries.length - oldest, truncated });
    },

    clear() {
      entries = [];
      oldest = 0;
      bytes = 0;
      return Promise.resolve();
    },

    onRecord(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
