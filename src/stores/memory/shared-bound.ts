// One kind of item (captured messages, journal entries) kept by every sandbox's store in this process, bounded together: past a bound, the oldest of all goes.

import type { BoundLimits, BoundUsage, SharedBounds } from "../shared-bounds.js";

/** A sandbox's store as the bound sees it. */
export interface BoundHolder {
  /** Drops this store's oldest item: the bound's oldest of all. */
  dropOldest(): void;
  /** The bytes this store keeps now, as it counts them against `maxBytes`. */
  keptBytes(): number;
}

/** What a store tells the bound of its items; each call that adds bytes drops the oldest of all while past a bound (never the newest). */
export interface BoundMember {
  /** A new item, the newest of all. */
  added(): void;
  /** The store's bytes changed (an item grew, or was dropped by the store itself). */
  resized(): void;
  /** The item `fromOldest` places after this store's oldest left it (a delete). */
  removed(fromOldest: number): void;
  /** Every item of this store left it (a clear). */
  cleared(): void;
}

export interface MemoryBound {
  readonly limits: BoundLimits;
  join(holder: BoundHolder): BoundMember;
  usage(): BoundUsage;
}

/**
 * The holders of the items in capture order, one place per item: the head's holder holds the
 * oldest item of all (its own oldest), as items leave a store only oldest first, or through a
 * delete or a clear, which take their places out at once. The array is cut once half of it is
 * spent, so adding and dropping stay O(1) amortized; a delete or a clear scans it (rare admin calls).
 */
export function createMemoryBound(limits: BoundLimits): MemoryBound {
  let holders: (BoundHolder | undefined)[] = [];
  let oldest = 0;
  let bytes = 0;
  const bytesOf = new Map<BoundHolder, number>();

  const count = (): number => holders.length - oldest;

  function resync(holder: BoundHolder): void {
    const now = holder.keptBytes();
    bytes += now - (bytesOf.get(holder) ?? 0);
    // A store that keeps nothing is not remembered: a forgotten sandbox's is garbage.
    if (now === 0) bytesOf.delete(holder);
    else bytesOf.set(holder, now);
  }

  function dropPastBounds(): void {
    while (count() > limits.capacity || (bytes > limits.maxBytes && count() > 1)) {
      const holder = holders[oldest] as BoundHolder;
      holders[oldest] = undefined;
      oldest += 1;
      holder.dropOldest();
      resync(holder);
    }
    if (oldest * 2 >= holders.length && oldest > 16) {
      holders = holders.slice(oldest);
      oldest = 0;
    }
  }

  return {
    limits,
    usage: () => ({ count: count(), bytes }),
    join(holder) {
      return {
        added() {
          holders.push(holder);
          resync(holder);
          dropPastBounds();
        },
        resized() {
          resync(holder);
          dropPastBounds();
        },
        removed(fromOldest) {
          let seen = 0;
          for (let index = oldest; index < holders.length; index += 1) {
            if (holders[index] !== holder) continue;
            if (seen === fromOldest) {
              holders.splice(index, 1);
              break;
            }
            seen += 1;
          }
          resync(holder);
        },
        cleared() {
          holders = holders.slice(oldest).filter((each) => each !== holder);
          oldest = 0;
          resync(holder);
        },
      };
    },
  };
}

/** The bounds of a mock on the memory store: every sandbox's outbox and journal join them. */
export interface MemorySharedBounds extends SharedBounds {
  readonly messageBound: MemoryBound;
  readonly journalBound: MemoryBound;
}

export function createMemorySharedBounds(limits: { messages: BoundLimits; journal: BoundLimits }): MemorySharedBounds {
  const messageBound = createMemoryBound(limits.messages);
  const journalBound = createMemoryBound(limits.journal);
  return {
    messages: limits.messages,
    journal: limits.journal,
    messageBound,
    journalBound,
    usage: () => Promise.resolve({ messages: messageBound.usage(), journal: journalBound.usage() }),
  };
}
