// A server-sent-events parser (the text/event-stream format of the HTML standard).
//
// EventSource cannot send an Authorization header, and the admin token must go in one, so
// the page reads the stream with fetch() and parses it here. Pure: no DOM, no network.

/**
 * Feed it text as it arrives, in chunks cut anywhere; it calls `onEvent({type, data})` for
 * each complete event and `onRetry(ms)` when the server suggests a reconnection delay.
 */
export class EventStreamParser {
  #buffer = "";
  #eventType = "";
  #dataLines = [];
  // A chunk ending in "\r" may be the first half of "\r\n": the "\n" must not end a second line.
  #skipLeadingNewline = false;

  constructor({ onEvent, onRetry = () => {} }) {
    this.onEvent = onEvent;
    this.onRetry = onRetry;
  }

  push(text) {
    if (this.#skipLeadingNewline && text.startsWith("\n")) text = text.slice(1);
    this.#skipLeadingNewline = false;
    this.#buffer += text;

    // Lines end with CRLF, LF or CR; a trailing partial line waits for the next chunk.
    const lineEnd = /\r\n|\n|\r/g;
    let start = 0;
    let match;
    while ((match = lineEnd.exec(this.#buffer)) !== null) {
      // A lone "\r" at the very end may still become "\r\n": treat it as the end, remember it.
      if (match[0] === "\r" && match.index === this.#buffer.length - 1) this.#skipLeadingNewline = true;
      this.#processLine(this.#buffer.slice(start, match.index));
      start = lineEnd.lastIndex;
    }
    this.#buffer = this.#buffer.slice(start);
  }

  #processLine(line) {
    if (line === "") {
      this.#dispatch();
      return;
    }
    if (line.startsWith(":")) return; // a comment, such as the heartbeat
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);

    switch (field) {
      case "event":
        this.#eventType = value;
        break;
      case "data":
        this.#dataLines.push(value);
        break;
      case "retry":
        if (/^\d+$/.test(value)) this.onRetry(Number(value));
        break;
      default:
        // "id" and unknown fields: nothing the page needs.
        break;
    }
  }

  #dispatch() {
    const type = this.#eventType || "message";
    const hasData = this.#dataLines.length > 0;
    const data = this.#dataLines.join("\n");
    this.#eventType = "";
    this.#dataLines = [];
    // The standard drops an event without data lines.
    if (hasData) this.onEvent({ type, data });
  }
}

/**
 * Reads a fetch() Response body as an event stream until it ends or `signal` aborts.
 * `onActivity()` is called for every chunk (heartbeats included), so a watchdog can tell a
 * quiet stream from a dead one.
 */
export async function readEventStream(response, { onEvent, onRetry, onActivity = () => {} }) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  const parser = new EventStreamParser({ onEvent, onRetry });
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      onActivity();
      parser.push(decoder.decode(value, { stream: true }));
    }
    parser.push(decoder.decode());
  } finally {
    reader.releaseLock();
  }
}
