// An inverted index from the words of texts to the numbers of the texts that hold them, so that a substring search reads only a few texts.

/**
 * Every text added under a number (increasing: the outbox's capture order) is filed under each
 * of its distinct words. A word is a run of letters, digits, `_` or any non-ASCII code unit,
 * judged one UTF-16 code unit at a time, so that a run of the query always lies within one word
 * of a text that holds the query. A query's candidates are the texts filed under a word that
 * holds the query's longest run (starts with it when the query has a separator before it, ends
 * with it when after): a text without such a word cannot hold the query. Candidates must still
 * be searched in full, so the index can cost time, never a wrong response.
 *
 * Scanning 10k captured messages for a token cost 11.8 ms of CPU per request (87 req/s). An
 * index of trigrams served the same search in a few µs, but filing the ~1,400 trigrams of a
 * welcome email (and taking them out when it was dropped) added ~200 µs of server CPU to every
 * send at capacity (729 against 519 µs, 15k sends each), and 4 KB of index to a 1.8 KB message.
 * Its 95 distinct words (210 in all) cost no CPU per send that 15k sends could tell apart
 * (596 and 565 µs with them, 617 without) and about 760 bytes of index.
 */

/** Heap bytes of a string: V8 keeps one byte per character when every one is Latin-1, two otherwise, after a 16-byte header. */
export function stringBytes(text: string): number {
  // eslint-disable-next-line no-control-regex -- the Latin-1 range is the point
  return 16 + text.length * (/[^\u0000-\u00ff]/.test(text) ? 2 : 1);
}

/**
 * Heap bytes of one posting list besides its numbers and its word: the Map entry, the list
 * object, the Uint32Array and its ArrayBuffer. Measured on Node 20 with `heapUsed` and
 * `external` after a GC over 100k lists: 301 bytes for a list of 4 numbers (16 of them the
 * numbers), 269 + 256 for 64.
 */
const POSTING_OVERHEAD_BYTES = 285;
const FIRST_POSTING_CAPACITY = 4;
/** A query run shorter than this would match too many words to narrow anything: such a query is served by a scan. */
const MIN_RUN_LENGTH = 2;

function isWordUnit(code: number): boolean {
  return (code >= 97 && code <= 122) || (code >= 48 && code <= 57) || code >= 128 || (code >= 65 && code <= 90) || code === 95;
}

/** Calls `visit` with every maximal run of word units in `text`, with whether a separator comes before and after it. */
function forEachRun(text: string, visit: (run: string, separatorBefore: boolean, separatorAfter: boolean) => void): void {
  let start = -1;
  for (let index = 0; index <= text.length; index += 1) {
    const inWord = index < text.length && isWordUnit(text.charCodeAt(index));
    if (inWord && start < 0) start = index;
    else if (!inWord && start >= 0) {
      visit(text.slice(start, index), start > 0, index < text.length);
      start = -1;
    }
  }
}

/**
 * V8 keeps a slice of 13 characters or more as a view into the text it came from: a word kept
 * as a key would keep that whole text alive after its message is gone. Joining copies it.
 */
function ownCopy(word: string): string {
  return word.length < 13 ? word : word.split("").join("");
}

/**
 * The numbers of the texts filed under one word, in increasing order. Texts mostly leave
 * oldest first, so the oldest is dropped by moving `start`; the array is compacted once half
 * of it is spent and shrunk once three quarters of it are empty, so that memory follows the
 * texts kept.
 */
class Posting {
  numbers = new Uint32Array(FIRST_POSTING_CAPACITY);
  start = 0;
  end = 0;

  constructor(readonly fixedBytes: number) {}

  get size(): number {
    return this.end - this.start;
  }

  get allocatedBytes(): number {
    return this.numbers.byteLength + this.fixedBytes;
  }

  /** Files `textNumber` unless it is already the last one filed (a word met again in the same text); the bytes the list grew by. */
  append(textNumber: number): number {
    if (this.end > this.start && this.numbers[this.end - 1] === textNumber) return 0;
    const before = this.numbers.byteLength;
    if (this.end === this.numbers.length) this.resize(Math.max(FIRST_POSTING_CAPACITY, this.size * 2));
    this.numbers[this.end] = textNumber;
    this.end += 1;
    return this.numbers.byteLength - before;
  }

  /** Takes `textNumber` out if it is filed (a word met again in the same text is not); the bytes the list shrank by. */
  remove(textNumber: number): number {
    // Numbers before `start` are taken out already: a repeated word of the oldest text finds its number there.
    if (this.start > 0 && this.numbers[this.start - 1] === textNumber) return 0;
    if (this.end > this.start && this.numbers[this.start] === textNumber) this.start += 1;
    else {
      const index = this.indexOf(textNumber);
      if (index === undefined) return 0;
      this.numbers.copyWithin(index, index + 1, this.end);
      this.end -= 1;
    }
    const before = this.numbers.byteLength;
    if (this.size * 4 <= this.numbers.length && this.numbers.length > FIRST_POSTING_CAPACITY) this.resize(Math.max(FIRST_POSTING_CAPACITY, this.size * 2));
    else if (this.start * 2 >= this.numbers.length) this.resize(this.numbers.length);
    return before - this.numbers.byteLength;
  }

  /** The numbers, oldest first, without a copy. */
  view(): Uint32Array {
    return this.numbers.subarray(this.start, this.end);
  }

  private indexOf(textNumber: number): number | undefined {
    let low = this.start;
    let high = this.end - 1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      const found = this.numbers[middle] ?? 0;
      if (found === textNumber) return middle;
      if (found < textNumber) low = middle + 1;
      else high = middle - 1;
    }
    return undefined;
  }

  private resize(capacity: number): void {
    const numbers = new Uint32Array(capacity);
    numbers.set(this.view());
    this.end = this.size;
    this.start = 0;
    this.numbers = numbers;
  }
}

/** The longest run of a query and which ends of it the query bounds with a separator. */
interface QueryRun {
  run: string;
  startsWord: boolean;
  endsWord: boolean;
}

function longestRun(query: string): QueryRun | undefined {
  let longest: QueryRun | undefined;
  forEachRun(query, (run, startsWord, endsWord) => {
    if (longest === undefined || run.length > longest.run.length) longest = { run, startsWord, endsWord };
  });
  return longest;
}

/**
 * Which indexed words may hold `query` (lowercased): the one word that is its longest run when
 * the query has a separator on both sides of it, else those holding the run (at their start or
 * end when a separator comes before or after it). Undefined when the query has no run long
 * enough to narrow anything, and every text must be read.
 */
export type WordQuery = { word: string } | { holds: (word: string) => boolean };

export function wordQueryOf(query: string): WordQuery | undefined {
  const longest = longestRun(query);
  if (longest === undefined || longest.run.length < MIN_RUN_LENGTH) return undefined;
  const { run, startsWord, endsWord } = longest;
  if (startsWord && endsWord) return { word: run };
  return { holds: (word) => (startsWord ? word.startsWith(run) : endsWord ? word.endsWith(run) : word.includes(run)) };
}

export class WordIndex {
  private readonly postings = new Map<string, Posting>();
  private allocated = 0;

  /** The heap the index holds, estimated from its words, its lists' allocated arrays and their fixed cost. */
  get bytes(): number {
    return this.allocated;
  }

  /** Files `text` under `textNumber`, which must be greater than every number filed before. */
  add(textNumber: number, text: string): void {
    forEachRun(text, (word) => {
      let posting = this.postings.get(word);
      if (posting === undefined) {
        const key = ownCopy(word);
        posting = new Posting(POSTING_OVERHEAD_BYTES + stringBytes(key));
        this.postings.set(key, posting);
        this.allocated += posting.allocatedBytes;
      }
      this.allocated += posting.append(textNumber);
    });
  }

  /** Takes out a text added with `add`; `text` must be the same. */
  remove(textNumber: number, text: string): void {
    forEachRun(text, (word) => {
      const posting = this.postings.get(word);
      if (posting === undefined) return;
      this.allocated -= posting.remove(textNumber);
      if (posting.size > 0) return;
      this.allocated -= posting.allocatedBytes;
      this.postings.delete(word);
    });
  }

  clear(): void {
    this.postings.clear();
    this.allocated = 0;
  }

  /**
   * The numbers of the texts that may hold `query` (lowercased as the texts were), oldest first,
   * or undefined when the query has no run long enough to narrow them and every text is a candidate.
   */
  candidates(query: string): Uint32Array | undefined {
    const wordQuery = wordQueryOf(query);
    if (wordQuery === undefined) return undefined;
    if ("word" in wordQuery) return this.postings.get(wordQuery.word)?.view() ?? new Uint32Array(0);
    const lists: Uint32Array[] = [];
    for (const [word, posting] of this.postings) if (wordQuery.holds(word)) lists.push(posting.view());
    if (lists.length <= 1) return lists[0] ?? new Uint32Array(0);
    const merged = new Uint32Array(lists.reduce((sum, list) => sum + list.length, 0));
    let offset = 0;
    for (const list of lists) {
      merged.set(list, offset);
      offset += list.length;
    }
    merged.sort();
    return merged.filter((textNumber, index) => index === 0 || merged[index - 1] !== textNumber);
  }
}
