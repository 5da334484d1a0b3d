// Due work in memory: items by id, and a min-heap by due time to take the earliest quickly.

import type { DueItem, DueWorkStore } from "../../domain/scheduler.js";

interface HeapEntry {
  id: string;
  dueAtMs: number;
  /** Which put of `id` this is: an entry of an earlier put (replaced or removed) is skipped. */
  version: number;
}

/**
 * A binary min-heap by due time, then by the order of scheduling. Replaced and removed items
 * are left in it and skipped when they reach the top; it is rebuilt once they outnumber the
 * live ones. Sorting every item on each take cost ~2 ms with 10,000 pending steps, paid on
 * every timer tick.
 */
class DueHeap {
  private entries: HeapEntry[] = [];

  get length(): number {
    return this.entries.length;
  }

  private before(a: HeapEntry, b: HeapEntry): boolean {
    return a.dueAtMs < b.dueAtMs || (a.dueAtMs === b.dueAtMs && a.version < b.version);
  }

  private swap(i: number, j: number): void {
    const entries = this.entries;
    [entries[i], entries[j]] = [entries[j] as HeapEntry, entries[i] as HeapEntry];
  }

  push(entry: HeapEntry): void {
    this.entries.push(entry);
    let index = this.entries.length - 1;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      if (!this.before(this.entries[index] as HeapEntry, this.entries[parent] as HeapEntry)) break;
      this.swap(index, parent);
      index = parent;
    }
  }

  peek(): HeapEntry | undefined {
    return this.entries[0];
  }

  pop(): HeapEntry | undefined {
    const top = this.entries[0];
    const last = this.entries.pop();
    if (top === undefined || last === undefined || this.entries.length === 0) return top;
    this.entries[0] = last;
    let index = 0;
    for (;;) {
      const left = index * 2 + 1;
      const right = left + 1;
      let smallest = index;
      if (left < this.entries.length && this.before(this.entries[left] as HeapEntry, this.entries[smallest] as HeapEntry)) smallest = left;
      if (right < this.entries.length && this.before(this.entries[right] as HeapEntry, this.entries[smallest] as HeapEntry)) smallest = right;
      if (smallest === index) break;
      this.swap(index, smallest);
      index = smallest;
    }
    return top;
  }
}

export function createMemoryDueWork(): DueWorkStore {
  const items = new Map<string, { item: DueItem; version: number }>();
  // The ids of each group's items: a message dropped for room takes its items with it without a scan.
  const groups = new Map<string, Set<string>>();
  let heap = new DueHeap();
  let puts = 0;

  function forget(id: string): void {
    const group = items.get(id)?.item.group;
    items.delete(id);
    if (group === undefined) return;
    const ids = groups.get(group);
    ids?.delete(id);
    if (ids?.size === 0) groups.delete(group);
  }

  const isLive = (entry: HeapEntry): boolean => items.get(entry.id)?.version === entry.version;

  /** The earliest live entry, skipping those of replaced or removed items. */
  function earliest(): HeapEntry | undefined {
    for (let top = heap.peek(); top !== undefined; top = heap.peek()) {
      if (isLive(top)) return top;
      heap.pop();
    }
    return undefined;
  }

  function compactIfMostlyStale(): void {
    if (heap.length <= items.size * 2 + 64) return;
    heap = new DueHeap();
    for (const [id, { item, version }] of items) heap.push({ id, dueAtMs: item.dueAtMs, version });
  }

  return {
    put(item) {
      puts += 1;
      forget(item.id);
      items.set(item.id, { item: { ...item }, version: puts });
      if (item.group !== undefined) {
        const ids = groups.get(item.group) ?? new Set<string>();
        ids.add(item.id);
        groups.set(item.group, ids);
      }
      heap.push({ id: item.id, dueAtMs: item.dueAtMs, version: puts });
      compactIfMostlyStale();
      return Promise.resolve();
    },
    remove(ids) {
      for (const id of ids) forget(id);
      compactIfMostlyStale();
      return Promise.resolve();
    },
    claimDue(nowMs, limit) {
      const due: DueItem[] = [];
      for (let top = earliest(); top !== undefined && top.dueAtMs <= nowMs && due.length < limit; top = earliest()) {
        heap.pop();
        const live = items.get(top.id);
        forget(top.id);
        if (live) due.push(live.item);
      }
      return Promise.resolve(due);
    },
    // Taken items leave at once: the process that holds them is the only one, and goes with them.
    complete: () => Promise.resolve(),
    nextDueAtMs: () => Promise.resolve(earliest()?.dueAtMs),
    clear(kind) {
      for (const [id, { item }] of items) if (item.kind === kind) forget(id);
      compactIfMostlyStale();
      return Promise.resolve();
    },
    removeGroups(removed) {
      for (const group of removed) for (const id of groups.get(group) ?? []) forget(id);
      compactIfMostlyStale();
      return Promise.resolve();
    },
    size: () => Promise.resolve(items.size),
  };
}
