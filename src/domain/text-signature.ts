// A small bit set of the trigrams of a text, so that a substring search can skip texts that cannot hold it.

/**
 * Scanning every kept message's lowercased text for `q` cost 16 ms of CPU per request over
 * 10k captured messages (60 req/s). A signature lets most texts be ruled out with a few bit
 * tests: every trigram of the text sets one bit, so a text whose signature lacks a bit of one
 * of the query's trigrams cannot contain the query. Those that pass are still searched in full,
 * so a false positive costs time, never a wrong answer.
 */
export type TextSignature = Uint32Array;

/** About two bits per character: a bit is set by roughly one trigram in six, so a 3-trigram query lets through ~0.5% of the texts that do not hold it. */
const BITS_PER_CHARACTER = 2;
const MIN_WORDS = 2;
/** 128 KB of signature at most: a longer text only lets more non-matches through to the full search. */
const MAX_WORDS = 32_768;

function trigramHash(text: string, index: number): number {
  let hash = Math.imul(text.charCodeAt(index), 0x9e3779b1);
  hash = Math.imul(hash ^ text.charCodeAt(index + 1), 0x85ebca6b);
  hash = Math.imul(hash ^ text.charCodeAt(index + 2), 0xc2b2ae35);
  return (hash ^ (hash >>> 15)) >>> 0;
}

export function signatureOf(text: string): TextSignature {
  let words = MIN_WORDS;
  while (words * 32 < text.length * BITS_PER_CHARACTER && words < MAX_WORDS) words *= 2;
  const signature = new Uint32Array(words);
  const mask = words * 32 - 1;
  for (let index = 0; index + 2 < text.length; index += 1) {
    const bit = trigramHash(text, index) & mask;
    signature[bit >>> 5] = (signature[bit >>> 5] ?? 0) | (1 << (bit & 31));
  }
  return signature;
}

/** Whether a text with `signature` may contain `query` (both lowercased as alike); a query under three characters rules nothing out. */
export function mayContain(query: string): (signature: TextSignature) => boolean {
  const hashes: number[] = [];
  for (let index = 0; index + 2 < query.length; index += 1) hashes.push(trigramHash(query, index));
  return (signature) => {
    const mask = signature.length * 32 - 1;
    for (const hash of hashes) {
      const bit = hash & mask;
      if (((signature[bit >>> 5] ?? 0) & (1 << (bit & 31))) === 0) return false;
    }
    return true;
  };
}
