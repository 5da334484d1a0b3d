// Text the memory stores keep in bulk (messages, journal entries), held as UTF-8 bytes in large buffers outside V8's heap.

/**
 * Where one stored text is: its chunk and its byte range. It refers to the chunk, so a chunk
 * lives exactly as long as some span in it does, and the GC frees it with the last one.
 */
export class TextSpan {
  constructor(
    readonly chunk: Buffer,
    readonly start: number,
    readonly end: number,
  ) {}

  /** Its UTF-8 bytes. */
  get byteLength(): number {
    return this.end - this.start;
  }

  text(): string {
    return this.chunk.toString("utf8", this.start, this.end);
  }
}

/**
 * Texts go in chunks of this size, one after the other. Stores drop texts in about the order they
 * wrote them, so a chunk is let go soon after its texts are: at 100k captured messages (1.9 KB
 * each) it holds ~130 of them.
 */
const CHUNK_BYTES = 256 * 1024;
/** A text this large gets a buffer of its own, so the end of a chunk it would not fit in wastes at most this much. */
const OWN_BUFFER_BYTES = CHUNK_BYTES / 16;

/**
 * Why off the heap: V8 lets its heap grow to a few times the live heap before it collects, and
 * RSS follows the heap. With messages and journal entries kept as strings, 100k welcome emails
 * took 527 MB of live heap and 1,371 MB of heap before a full collection (RSS 1,483 MB). Bytes in
 * a buffer are outside that heap and count once in RSS; the heap keeps a small span per text, not
 * a Buffer object (~130 B of heap each). A journal entry's text also halves: its JSON holds a `…`
 * (the key hint), which makes V8 keep the whole string in two bytes a character.
 */
export class TextArena {
  private chunk: Buffer | undefined;
  private used = 0;

  /** Keeps `text`, whose UTF-8 length is `bytes` (measured by the caller, who needs it too). */
  store(text: string, bytes: number): TextSpan {
    if (bytes >= OWN_BUFFER_BYTES) {
      const own = Buffer.allocUnsafeSlow(bytes);
      own.write(text, 0, bytes, "utf8");
      return new TextSpan(own, 0, bytes);
    }
    if (this.chunk === undefined || this.used + bytes > CHUNK_BYTES) {
      this.chunk = Buffer.allocUnsafeSlow(CHUNK_BYTES);
      this.used = 0;
    }
    const start = this.used;
    this.chunk.write(text, start, bytes, "utf8");
    this.used += bytes;
    return new TextSpan(this.chunk, start, this.used);
  }

  /** Lets go of the chunk being filled: after a clear, nothing written before need stay. */
  reset(): void {
    this.chunk = undefined;
    this.used = 0;
  }
}
