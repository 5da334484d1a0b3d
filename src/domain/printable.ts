// Text from a target, a client or a user made safe to print on a terminal, in a log line or in XML: every invisible or control character escaped.

/**
 * Control and format characters (ESC, BEL, bidi overrides, zero-width), lone surrogates,
 * unassigned and private-use code points, and every separator but the plain space (NBSP, the line
 * and paragraph separators): a terminal would act on them, or show nothing where they are.
 */
const INVISIBLE = /[\p{C}\p{Z}]/gu;

/** `text` with each invisible or control character written as `\u001b` (`\u{e0001}` past U+FFFF): escape sequences cannot retitle a window or clear a screen. */
export function printable(text: string): string {
  return text.replace(INVISIBLE, (char) => {
    if (char === " ") return char;
    const code = char.codePointAt(0) ?? 0;
    return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, "0")}`;
  });
}
