// What every store of due work promises, whichever keeps it: items taken earliest first, each
// once, held until completed, replaced by id, removed, cleared by kind, removed by group.

import { describe, expect, it } from "vitest";
import type { DueItem, DueWorkStore } from "../../src/domain/scheduler.js";

export type MakeDueWork = () => Promise<DueWorkStore>;

function anItem(key: string, dueAtMs: number, kind = "lifecycle"): DueItem {
  return { id: `${kind}:${key}`, kind, payload: JSON.stringify({ key }), dueAtMs };
}

const idsOf = (items: DueItem[]): string[] => items.map((item) => item.id);

/** @param makeDueWork a new, empty store of its own on every call */
export function describeDueWorkContract(name: string, makeDueWork: MakeDueWork): void {
  describe(name, () => {
    it("takes the items due by a time, earliest first, and only once", async () => {
      const store = await makeDueWork();
      for (const item of [anItem("c", 3000), anItem("a", 1000), anItem("later", 9000), anItem("b", 2000)]) await store.put(item);

      expect(await store.claimDue(3000, 10)).toEqual([anItem("a", 1000), anItem("b", 2000), anItem("c", 3000)]);
      expect(await store.claimDue(3000, 10)).toEqual([]);
      expect(await store.nextDueAtMs()).toBe(9000);
      expect(await store.size()).toBe(1);
    });

    it("forgets an item once completed, but keeps what was put under its id while it ran (its next step)", async () => {
      const store = await makeDueWork();
      await store.put(anItem("a", 1000));
      await store.put(anItem("b", 1000));
      const [a, b] = await store.claimDue(1000, 10);
      await store.put(anItem("b", 2000));

      for (const item of [a, b]) if (item) await store.complete(item);

      expect(await store.claimDue(1000, 10)).toEqual([]);
      expect(await store.claimDue(9000, 10)).toEqual([anItem("b", 2000)]);
    });

    it("takes at most limit items", async () => {
      const store = await makeDueWork();
      for (const key of ["a", "b", "c"]) await store.put(anItem(key, 1000));
      expect(await store.claimDue(1000, 2)).toHaveLength(2);
      expect(await store.claimDue(1000, 2)).toHaveLength(1);
    });

    it("replaces an item put again under its id", async () => {
      const store = await makeDueWork();
      await store.put(anItem("a", 1000));
      await store.put(anItem("a", 5000));
      expect(await store.claimDue(4000, 10)).toEqual([]);
      expect(await store.nextDueAtMs()).toBe(5000);
      expect(idsOf(await store.claimDue(5000, 10))).toEqual(["lifecycle:a"]);
    });

    it("forgets removed items", async () => {
      const store = await makeDueWork();
      await store.put(anItem("a", 1000));
      await store.put(anItem("b", 2000));
      await store.remove(["lifecycle:a", "lifecycle:unknown"]);
      expect(idsOf(await store.claimDue(9000, 10))).toEqual(["lifecycle:b"]);
    });

    it("clears one kind and keeps the others", async () => {
      const store = await makeDueWork();
      await store.put(anItem("a", 1000));
      await store.put(anItem("x", 1000, "webhook"));
      await store.clear("lifecycle");
      expect(idsOf(await store.claimDue(9000, 10))).toEqual(["webhook:x"]);
      expect(await store.nextDueAtMs()).toBeUndefined();
    });

    it("forgets the items of removed groups, whatever their kind, and keeps the others", async () => {
      const store = await makeDueWork();
      const inGroup = (item: DueItem, group: string): DueItem => ({ ...item, group });
      await store.put(inGroup(anItem("a1", 1000, "webhook"), "msg_a"));
      await store.put(inGroup(anItem("a2", 2000, "webhook"), "msg_a"));
      await store.put(inGroup(anItem("a3", 3000), "msg_a"));
      await store.put(inGroup(anItem("b", 1500, "webhook"), "msg_b"));
      await store.put(anItem("none", 2500));
      // Taken once already: removing its group later is no concern of it.
      await store.put(inGroup(anItem("c", 500, "webhook"), "msg_c"));
      expect(idsOf(await store.claimDue(500, 10))).toEqual(["webhook:c"]);

      await store.removeGroups(["msg_a", "msg_c", "msg_unknown"]);

      expect(await store.size()).toBe(2);
      expect(await store.claimDue(9000, 10)).toEqual([inGroup(anItem("b", 1500, "webhook"), "msg_b"), anItem("none", 2500)]);
    });

    it("hands each item to exactly one of many concurrent takers", async () => {
      const store = await makeDueWork();
      for (let index = 0; index < 50; index += 1) await store.put(anItem(String(index), 1000 + index));
      const taken = (await Promise.all(Array.from({ length: 10 }, () => store.claimDue(5000, 7)))).flat();
      const more = await store.claimDue(5000, 100);
      expect(new Set(idsOf([...taken, ...more])).size).toBe(50);
      expect(taken.length + more.length).toBe(50);
    });
  });
}
