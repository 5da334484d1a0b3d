// The name a person probably meant when they wrote one that is not there: a key, a fault, an
// error code, told after the refusal as `(did you mean ...?)`.

import { distance } from "fastest-levenshtein";

/** How many characters two texts begin with alike. */
function sharedStart(a: string, b: string): number {
  let length = 0;
  while (length < a.length && length < b.length && a[length] === b[length]) length += 1;
  return length;
}

/**
 * The known key `key` was probably meant to be: one a typo or two away (`per_second`, `prot`),
 * or one it is the start of (`delay` for `delay_ms`). The typos allowed grow with the length of
 * what differs, not of what is alike: `message.lost` is not `message.sent` misspelt.
 */
export function closestKey(key: string, known: readonly string[]): string | undefined {
  const typed = key.toLowerCase();
  const scored = known.map((candidate) => ({ candidate, score: distance(typed, candidate.toLowerCase()) }));
  const [best] = scored.sort((a, b) => a.score - b.score);
  if (best !== undefined && best.score < typed.length) {
    const differing = typed.length - sharedStart(typed, best.candidate.toLowerCase());
    if (best.score <= Math.max(2, Math.floor(differing / 3))) return best.candidate;
  }
  return typed.length >= 3 ? known.find((candidate) => candidate.toLowerCase().startsWith(typed)) : undefined;
}

/**
 * ` (did you mean server_error?)` after a value that is none of `allowed` but close to one, as a
 * misspelt key gets; "" when nothing is close, or the value is not text.
 */
export function meantValue(value: unknown, allowed: readonly unknown[]): string {
  if (typeof value !== "string") return "";
  const meant = closestKey(
    value,
    allowed.filter((candidate): candidate is string => typeof candidate === "string"),
  );
  return meant === undefined ? "" : ` (did you mean ${meant}?)`;
}
