// The globs of fault rules: `*` and `?` over literal characters, matched without backtracking.
// A glob is at most 1024 characters (admin.yaml's `match`): matching costs at most the glob's
// length times the value's, and values are already bounded by the send contract.

/** Whether `segment` (literal characters and `?`) matches `text` at `at`. */
function segmentMatchesAt(segment: string, text: string, at: number): boolean {
  if (at + segment.length > text.length) return false;
  for (let index = 0; index < segment.length; index += 1) {
    const expected = segment[index];
    if (expected !== "?" && expected !== text[at + index]) return false;
  }
  return true;
}

/**
 * Compiles a case-insensitive glob: `*` is any run of characters, `?` any one, every other
 * character itself (so `ada+test@example.com` or `(x)` need no escaping). picomatch, used
 * before, compiled extglobs such as `+(*a)b` to backtracking regular expressions: one send
 * froze the event loop for 39 s. Here the pieces between stars are found leftmost first,
 * which is enough for `*` (a later piece can only gain from an earlier one found sooner),
 * so no position of the value is tried twice for the same piece.
 */
export function compileGlob(pattern: string): (value: string) => boolean {
  const pieces = pattern.toLowerCase().split("*");
  const first = pieces[0] ?? "";
  if (pieces.length === 1) return (value) => value.length === first.length && segmentMatchesAt(first, value.toLowerCase(), 0);
  const last = pieces.at(-1) ?? "";
  const middle = pieces.slice(1, -1).filter((piece) => piece !== "");
  return (value) => {
    const text = value.toLowerCase();
    if (text.length < first.length + last.length) return false;
    if (!segmentMatchesAt(first, text, 0) || !segmentMatchesAt(last, text, text.length - last.length)) return false;
    let at = first.length;
    const end = text.length - last.length;
    for (const piece of middle) {
      while (at + piece.length <= end && !segmentMatchesAt(piece, text, at)) at += 1;
      if (at + piece.length > end) return false;
      at += piece.length;
    }
    return true;
  };
}
