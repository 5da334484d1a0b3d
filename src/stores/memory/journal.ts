// The journal in memory: entries kept as JSON text, newest last, bounded by count and bytes.

import { cutToBytes } from "../../domain/outbox.js";
import type { Journal, JournalLimits } from "../../domain/journal.js";
import type { JournalEntry } from "../../wire.js";

export function createMemoryJournal(options: JournalLimits): Journal {
  const { capacity, maxBytes = Number.MAX_SAFE_INTEGER, maxPageBytes = Number.MAX_SAFE_INTEGER } = options;
  // Kept as JSON text with its size: the size is what the byte bound counts, and a list
  // answer parses only the page it returns.
  let entries: ({ json: string; bytes: number } | undefined)[] = [];
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
        // Let go of the text at once: kept until the next cut, the dropped entries doubled the
        // journal's heap at times (a 10-20 MB sawtooth at capacity 10,000 in the soak).
        entries[oldest] = undefined;
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
