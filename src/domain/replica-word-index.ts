// The word index of an outbox that several processes write (the Redis store): each replica keeps its own, caught up with the captures made since its last search.

import { WordIndex, wordQueryOf } from "./word-index.js";

/** What a catch-up reads, in one step so that no capture falls between the count and the messages. */
export interface CapturesSince {
  /** The capture sequence now: it rises by one per capture and is never reset, not even by a clear. */
  captured: number;
  /** How many messages are kept now. */
  kept: number;
  /** The kept messages captured after the sequence given (every kept one when none was), newest first, each with the text `q` searches (lowercased). */
  messages: { id: string; searchText: string }[];
}

/** What the index reads of a shared outbox. */
export type CaptureSource = (since: number | undefined) => Promise<CapturesSince>;

/** Numbers stay below 2^32 (the word index keeps them as 32-bit integers): the index is built again before. */
const MAX_NUMBER = 0xffff_ffff;

/**
 * Filing a message's words was the capture script's largest part: the 48 words of a welcome
 * email were 96 commands in Lua, ~230 µs of Redis's CPU per send (more than half of what it
 * spent on one), and most mocks are never searched. As in memory, the index is built at the first
 * search; as a replica does not see what the others capture, each search first files the
 * messages captured since the last one: the newest `captured - seen` kept messages, whatever was
 * deleted or dropped meanwhile. A message that left the outbox stays filed until the index is
 * built again (once it files more than twice the messages kept): the ids it gives are candidates,
 * read and searched in full, so one that is gone is simply not found.
 */
export class ReplicaWordIndex {
  private words = new WordIndex();
  private idsByNumber = new Map<number, string>();
  private filed = new Set<string>();
  private nextNumber = 0;
  /** The capture sequence up to which every kept message is filed; undefined before the first search. */
  private seen: number | undefined;
  /** One catch-up at a time: two searches at once would file the same messages twice. */
  private catchingUp: Promise<void> = Promise.resolve();

  constructor(private readonly capturedSince: CaptureSource) {}

  /** The ids of the kept messages that may hold `query` (lowercased), or undefined when every message may (see WordIndex.candidates). */
  async candidates(query: string): Promise<Set<string> | undefined> {
    if (wordQueryOf(query) === undefined) return undefined;
    const caughtUp = this.catchingUp.then(() => this.catchUp());
    // A failed read leaves the index as it was: the next search tries again.
    this.catchingUp = caughtUp.catch(() => undefined);
    await caughtUp;
    const numbers = this.words.candidates(query);
    if (numbers === undefined) return undefined;
    const ids = new Set<string>();
    for (const number of numbers) ids.add(this.idsByNumber.get(number) as string);
    return ids;
  }

  private async catchUp(): Promise<void> {
    let read = await this.capturedSince(this.seen);
    // A sequence that went back is another Redis (restarted empty): nothing filed is there.
    const stale = this.seen !== undefined && (read.captured < this.seen || this.filed.size > 2 * read.kept + 64);
    if (stale || this.nextNumber + read.messages.length >= MAX_NUMBER) {
      this.restart();
      read = await this.capturedSince(undefined);
    }
    // Filed oldest first: the word index wants rising numbers.
    for (let index = read.messages.length - 1; index >= 0; index -= 1) {
      const { id, searchText } = read.messages[index] as CapturesSince["messages"][number];
      if (this.filed.has(id)) continue;
      this.filed.add(id);
      this.idsByNumber.set(this.nextNumber, id);
      this.words.add(this.nextNumber, searchText);
      this.nextNumber += 1;
    }
    this.seen = read.captured;
  }

  private restart(): void {
    this.words = new WordIndex();
    this.idsByNumber = new Map();
    this.filed = new Set();
    this.nextNumber = 0;
    this.seen = undefined;
  }
}
