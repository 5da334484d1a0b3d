// What the bounds every sandbox's outbox and journal share promise, whichever store keeps them: capacity and max_bytes held
// across all sandboxes together, the oldest of all dropped first from whichever sandbox holds it, the newest always kept.

import { describe, expect, it } from "vitest";
import type { Journal } from "../../src/domain/journal.js";
import type { Outbox } from "../../src/domain/outbox.js";
import { DEFAULT_SANDBOX } from "../../src/domain/sandboxes.js";
import type { BoundLimits, SharedBounds } from "../../src/stores/shared-bounds.js";
import type { CapturedMessage } from "../../src/wire.js";
import { anEntry } from "./journal-contract.js";
import { aMessage, idsOf } from "./outbox-contract.js";

/** The sandboxes of one new, empty mock: each call opens that sandbox's outbox or journal, charging the one set of bounds. */
export interface BoundedSandboxes {
  bounds: SharedBounds;
  outboxOf: (sandbox: string) => Promise<Outbox>;
  journalOf: (sandbox: string) => Promise<Journal>;
}

export type MakeBoundedSandboxes = (limits: { messages: BoundLimits; journal: BoundLimits }) => Promise<BoundedSandboxes>;

const UNBOUNDED = Number.MAX_SAFE_INTEGER;

/** Resolves with the ids of the next messages the outbox says were dropped for another sandbox's room. */
function nextDrop(outbox: Outbox): Promise<string[]> {
  return new Promise((resolve) => {
    const unsubscribe = outbox.onDropped((ids) => {
      unsubscribe();
      resolve(ids);
    });
  });
}

async function addAll(outbox: Outbox, messages: CapturedMessage[]): Promise<string[]> {
  const dropped: string[] = [];
  for (const message of messages) dropped.push(...(await outbox.add(message)).dropped);
  return dropped;
}

const entryIdsOf = async (journal: Journal): Promise<string[]> => (await journal.list()).requests.map((entry) => entry.id);

export function describeSharedBoundsContract(name: string, makeSandboxes: MakeBoundedSandboxes): void {
  const withMessages = (messages: BoundLimits): Promise<BoundedSandboxes> => makeSandboxes({ messages, journal: { capacity: UNBOUNDED, maxBytes: UNBOUNDED } });
  const withJournal = (journal: BoundLimits): Promise<BoundedSandboxes> => makeSandboxes({ messages: { capacity: UNBOUNDED, maxBytes: UNBOUNDED }, journal });

  describe(name, () => {
    it("holds every sandbox's messages together to capacity, the oldest of all going first from whichever sandbox holds it", async () => {
      const { bounds, outboxOf } = await withMessages({ capacity: 3, maxBytes: UNBOUNDED });
      const [one, other] = [await outboxOf(DEFAULT_SANDBOX), await outboxOf("worker-b")];
      const [a1, b1, a2, b2, a3] = [aMessage(), aMessage(), aMessage(), aMessage(), aMessage()];
      await one.add(a1);
      await other.add(b1);
      await one.add(a2);

      expect((await other.add(b2)).dropped).toEqual([]);
      expect(idsOf(await one.list())).toEqual([a2.id]);
      expect(await one.stats()).toMatchObject({ count: 1, capacity: 3, dropped: 1 });

      const heard = nextDrop(other);
      expect((await one.add(a3)).dropped).toEqual([]);
      expect(await heard).toEqual([b1.id]);
      expect(idsOf(await other.list())).toEqual([b2.id]);
      expect(await other.stats()).toMatchObject({ count: 1, capacity: 3, dropped: 1 });
      expect((await bounds.usage()).messages.count).toBe(3);
    });

    it("lets one busy sandbox push out a quiet sandbox's only message once it is the oldest of all, returning the busy one's own drops", async () => {
      const { bounds, outboxOf } = await withMessages({ capacity: 2, maxBytes: UNBOUNDED });
      const [quiet, busy] = [await outboxOf("worker-a"), await outboxOf("worker-b")];
      const only = aMessage();
      await quiet.add(only);
      const burst = [aMessage(), aMessage(), aMessage(), aMessage()];

      const heard = nextDrop(quiet);
      const ownDrops = await addAll(busy, burst);

      expect(await heard).toEqual([only.id]);
      expect(ownDrops).toEqual(burst.slice(0, 2).map((message) => message.id));
      expect(idsOf(await busy.list())).toEqual([burst[3]?.id, burst[2]?.id]);
      expect((await quiet.list()).total).toBe(0);
      expect((await bounds.usage()).messages.count).toBe(2);
    });

    it("holds every sandbox's messages together to max_bytes, always keeping the newest", async () => {
      const big = (): CapturedMessage => aMessage({ text: "x".repeat(30_000) });
      const { bounds, outboxOf } = await withMessages({ capacity: 100, maxBytes: 100_000 });
      const [one, other] = [await outboxOf("worker-a"), await outboxOf("worker-b")];
      for (let round = 0; round < 3; round += 1) {
        await one.add(big());
        await other.add(big());
      }

      const [oneStats, otherStats, usage] = [await one.stats(), await other.stats(), (await bounds.usage()).messages];
      expect(usage.bytes).toBeLessThanOrEqual(100_000);
      expect(usage).toEqual({ count: oneStats.count + otherStats.count, bytes: oneStats.bytes + otherStats.bytes });
      expect(oneStats.count + otherStats.count).toBeLessThan(6);
      expect(oneStats).toMatchObject({ maxBytes: 100_000, dropped: 3 - oneStats.count });

      const huge = aMessage({ text: "y".repeat(150_000) });
      await other.add(huge);
      expect(idsOf(await other.list())).toEqual([huge.id]);
      expect((await one.list()).total).toBe(0);
    });

    it("drops the oldest message of all when an event grows a message past max_bytes", async () => {
      const { outboxOf } = await withMessages({ capacity: 100, maxBytes: 20_000 });
      const [one, other] = [await outboxOf("worker-a"), await outboxOf("worker-b")];
      const [oldest, growing] = [aMessage(), aMessage()];
      await one.add(oldest);
      await other.add(growing);

      const heard = nextDrop(one);
      const recorded = await other.recordEvent(
        growing.id,
        { type: "message.clicked", at: growing.created_at, link: `https://example.com/${"z".repeat(25_000)}` },
        "clicked",
      );

      expect(recorded?.dropped).toEqual([]);
      expect(await heard).toEqual([oldest.id]);
      expect(idsOf(await other.list())).toEqual([growing.id]);
    });

    it("gives a deleted message's room back, and keeps the others' order: the oldest left goes next", async () => {
      const { bounds, outboxOf } = await withMessages({ capacity: 3, maxBytes: UNBOUNDED });
      const [one, other] = [await outboxOf("worker-a"), await outboxOf("worker-b")];
      const [a1, a2, b1, b2, b3] = [aMessage(), aMessage(), aMessage(), aMessage(), aMessage()];
      await addAll(one, [a1, a2]);
      await other.add(b1);

      expect(await one.delete(a1.id)).toBe(a1.id);
      expect((await other.add(b2)).dropped).toEqual([]);
      expect((await bounds.usage()).messages.count).toBe(3);

      const heard = nextDrop(one);
      await other.add(b3);
      expect(await heard).toEqual([a2.id]);
      expect(idsOf(await other.list())).toEqual([b3.id, b2.id, b1.id]);
    });

    it("gives a cleared sandbox's room and bytes back to the others", async () => {
      const { bounds, outboxOf } = await withMessages({ capacity: 2, maxBytes: UNBOUNDED });
      const [one, other] = [await outboxOf("worker-a"), await outboxOf("worker-b")];
      await addAll(one, [aMessage(), aMessage()]);

      await one.clear();
      const kept = [aMessage(), aMessage()];

      expect(await addAll(other, kept)).toEqual([]);
      expect(idsOf(await other.list())).toEqual([kept[1]?.id, kept[0]?.id]);
      const usage = (await bounds.usage()).messages;
      expect(usage).toEqual({ count: 2, bytes: (await other.stats()).bytes });
    });

    it("holds every sandbox's journal entries together to capacity, the oldest of all first, and a clear gives its room back", async () => {
      const { bounds, journalOf } = await withJournal({ capacity: 3, maxBytes: UNBOUNDED });
      const [one, other] = [await journalOf(DEFAULT_SANDBOX), await journalOf("worker-b")];
      const [e1, e2, e3, e4] = [anEntry(), anEntry(), anEntry(), anEntry()];
      await one.record(e1);
      await other.record(e2);
      await one.record(e3);
      await other.record(e4);

      expect(await entryIdsOf(one)).toEqual([e3.id]);
      expect(await entryIdsOf(other)).toEqual([e4.id, e2.id]);
      expect((await bounds.usage()).journal.count).toBe(3);

      await other.clear();
      const [e5, e6] = [anEntry(), anEntry()];
      await one.record(e5);
      await one.record(e6);
      expect(await entryIdsOf(one)).toEqual([e6.id, e5.id, e3.id]);
      expect((await bounds.usage()).journal.count).toBe(3);
    });

    it("holds every sandbox's journal entries together to their bytes, always keeping the newest", async () => {
      const entryBytes = Buffer.byteLength(JSON.stringify(anEntry()));
      const { bounds, journalOf } = await withJournal({ capacity: 100, maxBytes: entryBytes * 3 + entryBytes / 2 });
      const [one, other] = [await journalOf("worker-a"), await journalOf("worker-b")];
      const entries = [anEntry(), anEntry(), anEntry(), anEntry(), anEntry()];
      for (const [index, entry] of entries.entries()) await (index % 2 === 0 ? one : other).record(entry);

      expect(await entryIdsOf(one)).toEqual([entries[4]?.id, entries[2]?.id]);
      expect(await entryIdsOf(other)).toEqual([entries[3]?.id]);
      expect((await bounds.usage()).journal.count).toBe(3);

      const huge = anEntry({ to: "y".repeat(entryBytes * 4) });
      await other.record(huge);
      expect(await entryIdsOf(other)).toEqual([huge.id]);
      expect((await one.list()).total).toBe(0);
    });
  });
}
