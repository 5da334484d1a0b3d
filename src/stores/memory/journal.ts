// The journal in memory: entries kept as JSON text, newest last, bounded by count and bytes.

import type { Journal, JournalLimits } from "../../domain/journal.js";
import type { JournalEntry } from "../../wire.js";
import { TextArena } from "./text-arena.js";
import { createMemoryBound, type MemoryBound } from "./shared-bound.js";

/**
 * `bound`: the one shared with the other sandboxes' journals, whose capacity and bytes replace
 * the options' (past them the oldest entry of all goes, in whichever journal); one of its own when left out.
 */
export function createMemoryJournal(options: JournalLimits, bound?: MemoryBound): Journal {
  const { maxPageBytes = Number.MAX_SAFE_INTEGER } = options;
  const shared = bound ?? createMemoryBound({ capacity: options.capacity, maxBytes: options.maxBytes ?? Number.MAX_SAFE_INTEGER });
  // Kept as JSON text, as UTF-8 bytes off the heap: the size is what the byte bound counts, and
  // a list response parses only the page it returns. As strings, 100k entries took ~190 MB of
  // live heap (two bytes a character: the key hint's `…`), ~2.6 times that in RSS before V8
  // collected; as bytes they take ~105 MB, once (see text-arena.ts). Entry i is bytes
  // starts[i]..ends[i] of chunks[i]: three arrays rather than an object each, which took 56 B of
  // heap an entry (~4 bytes of RSS a byte, V8 growing its heap to ~4 times the live heap).
  const texts = new TextArena();
  let chunks: (Buffer | undefined)[] = [];
  let starts: number[] = [];
  let ends: number[] = [];
  let oldest = 0;
  let bytes = 0;
  const listeners = new Set<(entry: JournalEntry) => void>();

  const bytesOf = (index: number): number => (ends[index] ?? 0) - (starts[index] ?? 0);

  const member = shared.join({
    dropOldest() {
      if (chunks.length - oldest === 0) return;
      bytes -= bytesOf(oldest);
      // Let go of the text at once: kept until the next cut, the dropped entries doubled the
      // journal's heap at times (a 10-20 MB sawtooth at capacity 10,000 in the soak).
      chunks[oldest] = undefined;
      oldest += 1;
      // Cut once half the arrays are spent, so that recording stays O(1) amortised.
      if (oldest * 2 >= chunks.length && oldest > 16) {
        chunks = chunks.slice(oldest);
        starts = starts.slice(oldest);
        ends = ends.slice(oldest);
        oldest = 0;
      }
    },
    keptBytes: () => bytes,
  });

  return {
    record(entry) {
      const json = JSON.stringify(entry);
      const span = texts.store(json, Buffer.byteLength(json));
      chunks.push(span.chunk);
      starts.push(span.start);
      ends.push(span.end);
      bytes += span.byteLength;
      member.added();
      for (const listener of listeners) listener(entry);
      return Promise.resolve();
    },

    list({ limit = Number.POSITIVE_INFINITY } = {}) {
      // Cut at `maxPageBytes` by the entries' sizes before any text is read (the first always kept).
      const page: string[] = [];
      let pageBytes = 0;
      let truncated = false;
      for (let index = chunks.length - 1; index >= oldest && page.length < limit; index -= 1) {
        pageBytes += bytesOf(index);
        if (page.length > 0 && pageBytes > maxPageBytes) {
          truncated = true;
          break;
        }
        page.push(chunks[index]?.toString("utf8", starts[index], ends[index]) ?? "");
      }
      return Promise.resolve({ requests: page.map((json) => JSON.parse(json) as JournalEntry), total: chunks.length - oldest, truncated });
    },

    clear() {
      chunks = [];
      starts = [];
      ends = [];
      oldest = 0;
      bytes = 0;
      texts.reset();
      member.cleared();
      return Promise.resolve();
    },

    onRecord(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
