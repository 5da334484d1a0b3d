// Offsets in a text as 1-based line numbers, found by binary search over where each line starts.

export class LineIndex {
  /** The offset at which each line starts; line 1 at 0. */
  readonly #starts: number[] = [0];

  constructor(text: string) {
    for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) this.#starts.push(at + 1);
  }

  /** The 1-based line holding `offset`. */
  lineOf(offset: number): number {
    let low = 0;
    let high = this.#starts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if ((this.#starts[middle] ?? 0) <= offset) low = middle;
      else high = middle - 1;
    }
    return low + 1;
  }
}
