// Bounded excerpts of what a client sent, for error answers and journal entries.

/** A request value quoted in an error or kept in the journal is cut to this many characters. */
export const MAX_VALUE_CHARS = 256;
/** An error message (which quotes values, each already cut) is cut to this many. */
export const MAX_MESSAGE_CHARS = 4096;
/** An error or journal entry lists at most this many violations, then says how many more. */
export const MAX_VIOLATIONS = 50;

/**
 * `text` whole when short, else its start and a marker saying how much was cut: a 0.9 MB
 * unknown field name gave a 900 KB error answer and a 2.7 MB journal entry.
 */
export function excerpt(text: string, maxChars = MAX_VALUE_CHARS): string {
  return text.length <= maxChars ? text : `${text.slice(0, maxChars)}…[${text.length - maxChars} more characters]`;
}
