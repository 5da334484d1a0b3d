// Idempotency keys in memory: claims and kept responses of one mock, oldest first, expiring on the mock's clock.

import type { IdempotencyClaim, IdempotencyLimits, IdempotencyStore, KeptResponse } from "../../domain/idempotency.js";

interface Entry {
  fingerprint: string;
  response: KeptResponse | undefined;
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
        put(scope, { fingerprint, response: undefined, expiresAtMs: nowMs() + limits.ttlMs });
        return Promise.resolve({ state: "claimed" });
      }
      return Promise.resolve(
        entry.response === undefined
          ? { state: "in_flight", fingerprint: entry.fingerprint }
          : { state: "responded", fingerprint: entry.fingerprint, response: entry.response },
      );
    },
    keep(scope, fingerprint, response) {
      put(scope, { fingerprint, response, expiresAtMs: nowMs() + limits.ttlMs });
      return Promise.resolve();
    },
    release(scope) {
      if (entries.get(scope)?.response === undefined) entries.delete(scope);
      return Promise.resolve();
    },
    reset() {
      entries = new Map();
      return Promise.resolve();
    },
  };
}
