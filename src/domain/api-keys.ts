// API keys: which are accepted, and the short hint that is all sendmock ever keeps of one.

import { timingSafeEqual } from "node:crypto";
import { sha256 } from "./digest.js";

/** The last 4 characters (fewer for a short key), so a key is never kept or shown whole. */
export function apiKeyHint(key: string): string {
  const shown = key.length > 8 ? 4 : Math.floor(key.length / 3);
  return key.slice(key.length - shown);
}

export interface KeyCheck {
  /** True when `key` may send; only digests of the configured keys are kept. */
  accepts(key: string): boolean;
  /** Hints of the configured keys, or null when any non-empty key is accepted. */
  readonly hints: string[] | null;
}

export function createKeyCheck(keys: readonly string[] | null): KeyCheck {
  if (keys === null) return { accepts: (key) => key.length > 0, hints: null };
  const digests = keys.map((key) => sha256(key));
  const hints = keys.map(apiKeyHint);
  return {
    // Compares digests of equal length in constant time, so timing tells nothing about a key.
    accepts(key) {
      const candidate = sha256(key);
      return digests.reduce((found, known) => timingSafeEqual(known, candidate) || found, false);
    },
    hints,
  };
}

/** Admin token check, in constant time. */
export function tokenMatches(expected: string, given: string): boolean {
  return timingSafeEqual(sha256(expected), sha256(given));
}
