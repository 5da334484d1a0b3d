// The journal in memory: entries kept as JSON text, newest last, bounded by count and bytes.

import type { Journal, JournalLimits } from "../../domain/journal.js";
import type { JournalEntry } from "../../wire.js";
import { TextArena, type TextSpan } from "./text-arena.js";

export function createMemoryJournal(options: JournalLimits): Journal {
  const { capacity, maxBytes = Number.MAX_SAFE_INTEGER, maxPageBytes = Number.MAX_SAFE_INTEGER } = options;
  // Kept as JSON text, as UTF-8 bytes off the heap: the size is what the byte bound counts, and
  // a list answer parses only the page it returns. As strings, 100k entries took ~190 MB of
  // live heap (two bytes a character: the key hint's `…`), ~2.6 times that in RSS before V8
  // collected; as bytes they take ~105 MB, once (see text-arena.ts).
  const texts = new TextArena();
  let entries: (TextSpan | undefined)[] = [];
  let oldest = 0;
  let bytes = 0;
  const listeners = new Set<(entry: JournalEntry) => void>();

  return {
    record(entry) {
      const json = JSON.stringify(entry);
      const span = texts.store(json, Buffer.byteLength(json));
      entries.push(span);
      bytes += span.bytes;
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
      // Cut at `maxPageBytes` by the spans' sizes before any text is read (the first always kept).
      const page: TextSpan[] = [];
      let pageBytes = 0;
      let truncated = false;
      for (let index = entries.length - 1; index >= oldest && page.length < limit; index -= 1) {
        const span = entries[index];
        if (span === undefined) continue;
        pageBytes += span.bytes;
        if (page.length > 0 && pageBytes > maxPageBytes) {
          truncated = true;
          break;
        }
        page.push(span);
      }
      return Promise.resolve({ requests: page.map((span) => JSON.parse(span.text()) as JournalEntry), total: entries.length - oldest, truncated });
    },

    clear() {
      entries = [];
      oldest = 0;
      bytes = 0;
      texts.reset();
      return Promise.resolve();
    },

    onRecord(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
