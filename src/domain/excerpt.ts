// Bounded excerpts of what a client sent, for error responses and journal entries.

/** A request value quoted in an error or kept in the journal is cut to this many characters. */
export const MAX_VALUE_CHARS = 256;
/** An error message (which quotes values, each already cut) is cut to this many. */
export const MAX_MESSAGE_CHARS = 4096;
/** An error or journal entry lists at most this many violations, then says how many more. */
export const MAX_VIOLATIONS = 50;

/**
 * `text` whole when short, else its start and a marker saying how much was cut: a 0.9 MB
 * unknown field name gave a 900 KB error response and a 2.7 MB journal entry.
 */
export function excerpt(text: string, maxChars = MAX_VALUE_CHARS): string {
  return text.length <= maxChars ? text : `${text.slice(0, maxChars)}…[${text.length - maxChars} more characters]`;
}

export interface BodyText {
  text: string;
  /** True when `text` is only the start of the body. */
  truncated: boolean;
}

/** The bytes `char` (a UTF-16 code unit, `next` the one after it) takes in JSON text written as UTF-8. */
function jsonBytesOf(char: number, next: number): number {
  if (char === 0x22 || char === 0x5c) return 2; // \" and \\
  if (char < 0x20) return char === 0x08 || char === 0x09 || char === 0x0a || char === 0x0c || char === 0x0d ? 2 : 6; // \n or \u0001
  if (char < 0x80) return 1;
  if (char < 0x800) return 2;
  if (char >= 0xd800 && char <= 0xdbff) return next >= 0xdc00 && next <= 0xdfff ? 4 : 6; // a pair, or a lone surrogate written as \ud800
  if (char >= 0xdc00 && char <= 0xdfff) return 6;
  return 3;
}

/**
 * The start of `bytes` as UTF-8 text, cut on a character boundary so that it takes at most
 * `maxBytes` in the journal's JSON: a character JSON writes as an escape counts as its escape,
 * so a body of control characters (6 bytes each as `\u0001`) cannot make an entry six times
 * the bound. Bytes that are not UTF-8 read as U+FFFD; a byte order mark is kept.
 */
export function bodyText(bytes: Uint8Array, maxBytes: number): BodyText {
  // Every byte takes at least one byte of JSON, so no more than maxBytes are decoded.
  let end = Math.min(bytes.length, maxBytes);
  // Not half a character: back to the first byte of the one the cut falls in (at most 3 back).
  for (let steps = 0; end < bytes.length && steps < 3 && ((bytes[end] ?? 0) & 0xc0) === 0x80; steps += 1) end -= 1;
  // Buffer's decoder, like TextDecoder with ignoreBOM, keeps a byte order mark and reads bad bytes as U+FFFD.
  const decoded = Buffer.from(bytes.buffer, bytes.byteOffset, end).toString("utf8");
  // No character takes more than 6 bytes as JSON (`\u0001`): a body that short fits whole,
  // without walking it character by character (every journaled request and response is one).
  if (bytes.length * 6 <= maxBytes) return { text: decoded, truncated: false };
  // A body decoded whole may still fit: JSON.stringify measures it natively, where walking it
  // character by character took 11% of the server's CPU under the fuzz tests (bodies of 11-64 KB).
  // Decoded bytes hold no lone surrogate, so both count each character alike.
  if (end === bytes.length && Buffer.byteLength(JSON.stringify(decoded)) - 2 <= maxBytes) return { text: decoded, truncated: false };
  const cut = startWithinJsonBytes(decoded, maxBytes);
  return { text: cut.text, truncated: cut.truncated || end < bytes.length };
}

/** The start of `text` that takes at most `maxBytes` written as JSON (escapes counted as such), never half a surrogate pair. */
export function startWithinJsonBytes(text: string, maxBytes: number): BodyText {
  let used = 0;
  let kept = 0;
  while (kept < text.length) {
    const size = jsonBytesOf(text.charCodeAt(kept), text.charCodeAt(kept + 1));
    if (used + size > maxBytes) break;
    used += size;
    kept += size === 4 ? 2 : 1;
  }
  return { text: text.slice(0, kept), truncated: kept < text.length };
}

/** A violation's path or message as the journal keeps it (see boundedViolation). */
const MAX_VIOLATION_PART_BYTES = 512;

/**
 * A violation whose path or message quotes what a client sent (a field name of 256 control
 * characters, 1.5 KB once escaped) is cut to 512 bytes of JSON each, with a `…`: 50 such
 * violations made one journal entry 158 KB.
 */
export function boundedViolation(violation: { path: string; message: string }): { path: string; message: string } {
  const cut = (text: string): string => {
    const start = startWithinJsonBytes(text, MAX_VIOLATION_PART_BYTES - 3);
    return start.truncated ? `${start.text}…` : text;
  };
  return { path: cut(violation.path), message: cut(violation.message) };
}

/** A string field of a parsed JSON body, cut to an excerpt for the journal and the log; undefined when it is not a string. */
export function fieldExcerpt(body: unknown, name: string): string | undefined {
  const value = body !== null && typeof body === "object" ? (body as Record<string, unknown>)[name] : undefined;
  return typeof value === "string" ? excerpt(value) : undefined;
}
