// What every clock offset store promises, whichever keeps it: it moves only forward, and never
// past the largest offset a move names, even when replicas move it at once.

import { describe, expect, it } from "vitest";
import type { ClockOffsetStore } from "../../src/domain/clock.js";

/** Two replicas of a new store at offset 0 (one store twice, for a store only one process sees). */
export type MakeClockOffsets = () => Promise<[ClockOffsetStore, ClockOffsetStore]>;

export function describeClockOffsetContract(name: string, makeClockOffsets: MakeClockOffsets): void {
  describe(name, () => {
    it("moves forward by each advance, and answers the new offset", async () => {
      const [offset] = await makeClockOffsets();
      expect(await offset.advance(5000)).toBe(5000);
      expect(await offset.advance(0)).toBe(5000);
      expect(await offset.advance(1500, 10_000)).toBe(6500);
      expect(offset.current()).toBe(6500);
    });

    it("refuses a move past the largest offset it names, and moves nothing; up to it, it moves", async () => {
      const [offset] = await makeClockOffsets();
      await offset.advance(5000);

      expect(await offset.advance(2001, 7000)).toBeUndefined();
      expect(offset.current()).toBe(5000);
      expect(await offset.advance(2000, 7000)).toBe(7000);
      expect(await offset.advance(1, 7000)).toBeUndefined();
      expect(offset.current()).toBe(7000);
    });

    it("lets only as many of several moves at once through as fit below the largest offset", async () => {
      const [one, other] = await makeClockOffsets();

      const moved = await Promise.all([one, other, one, other].map((offset) => offset.advance(4000, 10_000)));

      expect(moved.filter((offsetMs) => offsetMs !== undefined)).toHaveLength(2);
      expect(Math.max(...moved.map((offsetMs) => offsetMs ?? 0))).toBe(8000);
    });
  });
}
