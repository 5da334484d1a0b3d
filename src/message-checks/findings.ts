// Findings as a check collects them: capped, failures kept before warnings, each excerpt short and printable.

import { printable } from "../domain/printable.js";
import type { MessageCheckName, MessageFinding, MessageCheck } from "./types.js";

export const DEFAULT_MAX_FINDINGS = 50;
/** An excerpt of an element or declaration is cut to this many characters. */
const MAX_EXCERPT_CHARS = 120;

/** A check's findings as it goes: it adds every one; the list keeps `max` of each severity and counts them all. */
export class FindingList {
  readonly #max: number;
  readonly #fails: MessageFinding[] = [];
  readonly #warns: MessageFinding[] = [];
  #total = 0;
  #failures = 0;

  constructor(max: number) {
    this.#max = Math.max(0, Math.floor(max));
  }

  add(finding: MessageFinding): void {
    this.#total += 1;
    if (finding.severity === "fail") this.#failures += 1;
    const kept = finding.severity === "fail" ? this.#fails : this.#warns;
    if (kept.length < this.#max) kept.push(finding);
  }

  get total(): number {
    return this.#total;
  }

  get failures(): number {
    return this.#failures;
  }

  /**
   * The check's result: `fail` on any failure, `warn` on any warning, else `pass`. The failures
   * come first, so that a capped list still shows why a check failed when warnings came earlier;
   * each in the order of the message (subject, HTML, text; line by line).
   */
  result(name: MessageCheckName, summary: string): MessageCheck {
    const status = this.#failures > 0 ? "fail" : this.#total > 0 ? "warn" : "pass";
    const findings = [...this.#fails.sort(byPlace), ...this.#warns.sort(byPlace)].slice(0, this.#max);
    return { name, status, summary, findings, findings_total: this.#total };
  }
}

const PART_ORDER = { subject: 0, html: 1, text: 2 } as const;

/** Subject, then HTML, then text; line by line; a finding about a whole part before those about its lines. */
function byPlace(a: MessageFinding, b: MessageFinding): number {
  const part = (finding: MessageFinding): number => (finding.part === undefined ? -1 : PART_ORDER[finding.part]);
  return part(a) - part(b) || (a.line ?? 0) - (b.line ?? 0);
}

/** How much of a long text an excerpt looks at: enough for 120 characters once whitespace runs are collapsed. */
const EXCERPT_SCAN_CHARS = MAX_EXCERPT_CHARS * 8;

/** `text` as an excerpt: whitespace runs as one space, control characters escaped, cut to 120 characters with `…`. */
export function evidence(text: string): string {
  // Only the start is looked at, so that a 900 KB attribute is not escaped whole to keep 120 characters of it.
  const head = text.length > EXCERPT_SCAN_CHARS ? text.slice(0, EXCERPT_SCAN_CHARS) : text;
  const shown = printable(head.replace(/\s+/g, " ").trim());
  return shown.length > MAX_EXCERPT_CHARS || head.length < text.length ? `${shown.slice(0, MAX_EXCERPT_CHARS - 1)}…` : shown;
}

/** `count thing` or `count things`. */
export function plural(count: number, thing: string, things = `${thing}s`): string {
  return `${count} ${count === 1 ? thing : things}`;
}
