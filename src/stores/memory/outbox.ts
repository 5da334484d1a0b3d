// The outbox in memory: messages kept as JSON text in capture order, indexed by id, by recipient and by the words of their text.

import type { CapturedMessage, MessageEvent } from "../../wire.js";
import {
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
import { stringBytes, WordIndex } from "../../domain/word-index.js";
import { entryOf, headOf, jsonOf, messageOf, type Entry } from "./outbox-entry.js";
import { TextArena } from "./text-arena.js";
import { createMemoryBound, type MemoryBound } from "./shared-bound.js";

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
   * Takes one entry out from anywhere in the queue; resolves with its place counted from the
   * oldest (-1 when it was not there). A linear search and splice: deleting one message is a rare
   * admin call, and keeping adding and dropping O(1) matters more.
   */
  remove(entry: Entry): number {
    const index = this.entries.lastIndexOf(entry);
    if (index < this.oldest) return -1;
    this.entries.splice(index, 1);
    return index - this.oldest;
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

/**
 * One recipient's entries, and what they share: their lowercased `to`, and `[to]`, the recipients
 * of those with no cc or bcc. Each entry kept a copy of its own (from its parsed request), 118 B
 * of heap a message when all go to one address, as tests' messages mostly do.
 */
class RecipientQueue extends CaptureQueue {
  constructor(
    readonly to: string,
    readonly alone: string[],
  ) {
    super();
  }
}

const EMPTY_QUEUE = new CaptureQueue();
const MAX_ENTRY_NUMBER = 0xffff_ffff;

export interface MemoryOutboxOptions extends OutboxLimits {
  /** The number the first capture is filed under (0): a test starts near 2^32 to see the numbers begin again. */
  firstEntryNumber?: number;
  /**
   * The bound shared with the other sandboxes' outboxes, whose `capacity` and `maxBytes` replace
   * the options': past them the oldest message of all goes, in whichever outbox. One of its own
   * when left out.
   */
  bound?: MemoryBound;
}

export function createMemoryOutbox(options: MemoryOutboxOptions): Outbox {
  const { maxPageBytes = Number.MAX_SAFE_INTEGER } = options;
  const bound = options.bound ?? createMemoryBound({ capacity: options.capacity, maxBytes: options.maxBytes ?? Number.MAX_SAFE_INTEGER });
  const { capacity, maxBytes } = bound.limits;
  /** The kept entries' `bytes`; the word index's own are added to it wherever `maxBytes` is compared. */
  let entryBytes = 0;
  let captured = new CaptureQueue();
  const texts = new TextArena();
  // Tests and the inbox mostly ask for one recipient's messages: responding to those from a
  // queue per lowercased `to` keeps a list from touching every captured message.
  const byTo = new Map<string, RecipientQueue>();
  const byId = new Map<string, Entry>();
  // `q` is served from the entries filed under the words that may hold it, never by reading
  // all. The index is built at the first search, not at each capture: filing a message's words
  // was ~7% of a send's CPU in a profile, and most mocks are never searched.
  const byNumber = new Map<number, Entry>();
  let words: WordIndex | undefined;
  let nextNumber = options.firstEntryNumber ?? 0;
  const listeners = new Set<(message: CapturedMessage) => void>();
  const eventListeners = new Set<(message: CapturedMessage, event: MessageEvent) => void>();
  const clearListeners = new Set<() => void>();
  const dropListeners = new Set<(ids: string[]) => void>();
  let dropped = 0;
  /** The ids the bound drops here during this outbox's own add or event, which returns them; undefined otherwise (another sandbox's add). */
  let droppingForSelf: string[] | undefined;

  function findNewest(predicate: (keys: SearchableKeys) => boolean): CapturedMessage | undefined {
    for (const entry of captured.newestFirst()) if (predicate(entry)) return messageOf(entry);
    return undefined;
  }

  function keptBytes(): number {
    return entryBytes + (words?.bytes ?? 0);
  }

  /** Gives `entry` its search text, counted in its bytes, and files it in `index`. */
  function fileWords(index: WordIndex, entry: Entry): void {
    entry.searchText = searchTextOf(messageOf(entry));
    const searchBytes = stringBytes(entry.searchText);
    entry.bytes += searchBytes;
    entryBytes += searchBytes;
    byNumber.set(entry.number, entry);
    index.add(entry.number, entry.searchText);
  }

  /** The word index, built over the kept messages, oldest first, at the first search. */
  function searchIndex(): WordIndex {
    if (words === undefined) {
      const index = new WordIndex();
      for (const entry of [...captured.newestFirst()].reverse()) fileWords(index, entry);
      words = index;
    }
    return words;
  }

  function* entriesNewestFirst(numbers: Uint32Array): Generator<Entry> {
    for (let index = numbers.length - 1; index >= 0; index -= 1) {
      const entry = byNumber.get(numbers[index] ?? -1);
      if (entry !== undefined) yield entry;
    }
  }

  function select(filter: MessageFilter): { page: Entry[]; total: number } {
    const limit = filter.limit ?? Number.POSITIVE_INFINITY;
    const sameTo = filter.to === undefined ? captured : (byTo.get(filter.to.toLowerCase()) ?? EMPTY_QUEUE);
    const predicate = searchablePredicate(filter);
    if (predicate === undefined) return { page: sameTo.newest(limit), total: sameTo.size };
    // The index's candidates are not narrowed by `to`: they are read only when fewer.
    const byText = filter.q === undefined || filter.q === "" ? undefined : searchIndex().candidates(filter.q.toLowerCase());
    const fromIndex = byText !== undefined && byText.length < sameTo.size;
    const matches = fromIndex ? matchesFilter(filter) : predicate;
    const page: Entry[] = [];
    let total = 0;
    for (const entry of fromIndex ? entriesNewestFirst(byText) : sameTo.newestFirst()) {
      if (!matches(entry)) continue;
      total += 1;
      if (page.length < limit) page.push(entry);
    }
    return { page, total };
  }

  /** Lets go of everything an entry that left the capture queue holds besides its recipient's queue, its index entries included. */
  function forget(entry: Entry): void {
    byId.delete(entry.id);
    if (words !== undefined) {
      byNumber.delete(entry.number);
      words.remove(entry.number, entry.searchText);
    }
    entryBytes -= entry.bytes;
  }

  function dropOldest(): string | undefined {
    const gone = captured.dropOldest();
    if (gone === undefined) return undefined;
    forget(gone);
    const sameTo = byTo.get(gone.to);
    sameTo?.dropOldest();
    if (sameTo?.size === 0) byTo.delete(gone.to);
    dropped += 1;
    return gone.id;
  }

  const member = bound.join({
    dropOldest() {
      const id = dropOldest();
      if (id === undefined) return;
      if (droppingForSelf !== undefined) droppingForSelf.push(id);
      else for (const listener of dropListeners) listener([id]);
    },
    keptBytes,
  });

  /** Tells the bound of a change (`added` or `resized`), which drops the oldest of all past it; returns the ids it dropped here. */
  function charged(change: () => void): string[] {
    const ids: string[] = [];
    droppingForSelf = ids;
    try {
      change();
    } finally {
      droppingForSelf = undefined;
    }
    return ids;
  }

  /** Files every kept entry again from number 0: the word index keeps numbers as 32-bit integers, which 2^32 captures would run out of. */
  function renumber(): void {
    words?.clear();
    byNumber.clear();
    nextNumber = 0;
    for (const entry of [...captured.newestFirst()].reverse()) {
      entry.number = nextNumber;
      nextNumber += 1;
      if (words === undefined) continue;
      byNumber.set(entry.number, entry);
      words.add(entry.number, entry.searchText);
    }
  }

  return {
    add(message) {
      if (nextNumber === MAX_ENTRY_NUMBER) renumber();
      const keys = matchKeysOf(message);
      const known = byTo.get(keys.to);
      if (known !== undefined) {
        keys.to = known.to;
        if (keys.recipients.length === 1) keys.recipients = known.alone;
        // The recipient's previous message mostly has the same template and subject: its strings
        // are shared rather than each message's own (~80 B of heap a message; 8 MB at 100k).
        const previous = known.latest();
        if (previous?.templateId === keys.templateId) keys.templateId = previous.templateId;
        if (previous?.subject === keys.subject) keys.subject = previous.subject;
      }
      const entry = entryOf(message, nextNumber, keys, texts);
      nextNumber += 1;
      captured.push(entry);
      let sameTo = known;
      if (sameTo === undefined) {
        sameTo = new RecipientQueue(entry.to, entry.recipients.length === 1 ? entry.recipients : [entry.to]);
        byTo.set(entry.to, sameTo);
      }
      sameTo.push(entry);
      byId.set(entry.id, entry);
      entryBytes += entry.bytes;
      if (words !== undefined) fileWords(words, entry);
      // 900 KB messages under the count alone filled a default heap after ~900 sends.
      const dropped = charged(() => member.added());
      for (const listener of listeners) listener(message);
      return Promise.resolve({ dropped });
    },

    recordEvent(id, event, status, maxEvents = Number.POSITIVE_INFINITY) {
      const entry = byId.get(id);
      if (entry === undefined || entry.eventCount >= maxEvents) return Promise.resolve(undefined);
      const eventJson = JSON.stringify(event);
      const first = entry.eventsJson === "[]";
      // What the text grows by, counted from what changed rather than by measuring the whole:
      // the event, a comma before all but the first, and the status's new length (ASCII words).
      const grown = Buffer.byteLength(eventJson) + (first ? 0 : 1) + status.length - entry.status.length;
      // The entry is shared by the capture queue and its recipient's queue: changed in place.
      const eventsJson = first ? `[${eventJson}]` : `${entry.eventsJson.slice(0, -1)},${eventJson}]`;
      // Read once so that V8 copies the joined text into one string now: left joined, two events
      // held a tree of 5 strings, 286 B of heap a message instead of 140 (20 MB at 100k).
      if (eventsJson.charCodeAt(0) !== 0x5b) throw new Error(`events of ${id} are not a JSON array`);
      entry.eventsJson = eventsJson;
      entry.eventCount += 1;
      entry.status = status;
      entry.headBytes += grown;
      entry.bytes += grown;
      entryBytes += grown;
      // 100 clicks on a message with an 800 KB link once grew it past max_bytes, and nothing went.
      const dropped = charged(() => member.resized());
      for (const listener of eventListeners) listener(messageOf(entry), event);
      // As it is now: a later event must not show in what this one is read as (the text after the events never changes).
      const head = headOf(entry);
      return Promise.resolve({ message: () => JSON.parse(`${head}${entry.text()}`) as CapturedMessage, dropped });
    },

    list(filter = {}) {
      const { page, total } = select(filter);
      return Promise.resolve({ messages: page.map(messageOf), total });
    },

    listSerialized(filter = {}) {
      const { page, total } = select(filter);
      // Cut at `maxPageBytes` by the entries' sizes before any text is read (the first always kept).
      let pageBytes = 0;
      const cut = page.findIndex((entry, index) => {
        pageBytes += entry.headBytes + entry.byteLength;
        return index > 0 && pageBytes > maxPageBytes;
      });
      const kept = cut === -1 ? page : page.slice(0, cut);
      return Promise.resolve({ messages: kept.map(jsonOf), total, truncated: cut !== -1 });
    },

    get(id) {
      const entry = id === "latest" ? captured.latest() : byId.get(id);
      return Promise.resolve(entry === undefined ? undefined : messageOf(entry));
    },

    delete(id) {
      const entry = id === "latest" ? captured.latest() : byId.get(id);
      if (entry === undefined) return Promise.resolve(undefined);
      const place = captured.remove(entry);
      forget(entry);
      if (place >= 0) member.removed(place);
      const sameTo = byTo.get(entry.to);
      sameTo?.remove(entry);
      if (sameTo?.size === 0) byTo.delete(entry.to);
      return Promise.resolve(entry.id);
    },

    clear() {
      captured = new CaptureQueue();
      byTo.clear();
      byId.clear();
      byNumber.clear();
      texts.reset();
      // Back to the start: the index is built again at the next search.
      words = undefined;
      entryBytes = 0;
      dropped = 0;
      member.cleared();
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
        findNow: () => {
          // A wait on `q` reads the kept messages' search text: it is there once they are indexed.
          if (filter.q !== undefined && filter.q !== "") searchIndex();
          return Promise.resolve(findNewest(predicate));
        },
        count: () => Promise.resolve(captured.size),
      });
    },

    stats() {
      return Promise.resolve({ count: captured.size, capacity, bytes: keptBytes(), maxBytes, dropped });
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

    onDropped(listener) {
      dropListeners.add(listener);
      return () => dropListeners.delete(listener);
    },
  };
}
