// Idempotency keys in memory: claims and kept answers of one mock, oldest first, expiring on the mock's clock.

import type { IdempotencyClaim, IdempotencyLimits, IdempotencyStore, KeptAnswer } from "../../domain/idempotency.js";

interface Entry {
  fingerprint: string;
  answer: KeptAnswer | undefined;
  expiresAtMs: number;
}

/** @param nowMs the mock's clock, so that advancing it expires keys */
export function createMemoryIdempotencyStore(limits: IdempotencyLimits, nowMs: () => number = () => Date.now()): IdempotencyStore {
  // A Map iterates in insertion order: its first key is the oldest, the one to evict.
  let entries = new Map<string, Entry>();

  const live = (scope: string): Entry | undefined => {
    const entry = entries.get(scope);
    if (entry === undefined || entry.expiresAtMs > nowMs()) return entry;
    entries.delete(scope);
    return undefined;
  };

  const put = (scope: string, entry: Entry): void => {
    entries.delete(scope);
    entries.set(scope, entry);
    for (const oldest of entries.keys()) {
      if (entries.size <= limits.maxKeys) break;
      entries.delete(oldest);
    }
  };

  return {
    claim(scope, fingerprint): Promise<IdempotencyClaim> {
      const entry = live(scope);
      if (entry === undefined) {
        put(scope, { fingerprint, answer: undefined, expiresAtMs: nowMs() + limits.ttlMs });
        return Promise.resolve({ state: "claimed" });
      }
      return Promise.resolve(
        entry.answer === undefined
          ? { state: "in_flight", fingerprint: entry.fingerprint }
          : { state: "answered", fingerprint: entry.fingerprint, answer: entry.answer },
      );
    },
    keep(scope, fingerprint, answer) {
      put(scope, { fingerprint, answer, expiresAtMs: nowMs() + limits.ttlMs });
      return Promise.resolve();
    },
    release(scope) {
      if (entries.get(scope)?.answer === undefined) entries.delete(scope);
      return Promise.resolve();
    },
    reset() {
      entries = new Map();
      return Promise.resolve();
    },
  };
}
