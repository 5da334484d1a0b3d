// What every outbox promises about its bounds: capacity and max_bytes, clearing and deleting one
// message. Part of the outbox contract that each store runner calls (see outbox-contract.ts).

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Outbox } from "../../src/domain/outbox.js";
import type { CapturedMessage } from "../../src/wire.js";
import { aMessage, idsOf, outboxFiller, type MakeOutbox } from "./outbox-contract.js";

function nextClear(outbox: Outbox): Promise<void> {
  return new Promise((resolve) => {
    const unsubscribe = outbox.onClear(() => {
      unsubscribe();
      resolve();
    });
  });
}

/**
 * @param makeOutbox a new, empty outbox of its own on every call
 * @param propertyRuns how many random histories the model test tries (fewer for a slower store)
 */
export function describeOutboxCapacityContract(name: string, makeOutbox: MakeOutbox, options: { propertyRuns?: number } = {}): void {
  const anOutbox = outboxFiller(makeOutbox);

  describe(name, () => {
    describe("capacity", () => {
      it("drops the oldest message past capacity and counts the drops", async () => {
        const [first, second, third, fourth] = [aMessage(), aMessage(), aMessage(), aMessage()];
        const outbox = await anOutbox([first, second, third], 2);

        expect(idsOf(await outbox.list())).toEqual([third.id, second.id]);
        expect(await outbox.get(first.id)).toBeUndefined();
        expect(await outbox.stats()).toMatchObject({ count: 2, capacity: 2, dropped: 1 });

        await outbox.add(fourth);

        expect(idsOf(await outbox.list())).toEqual([fourth.id, third.id]);
        expect(await outbox.get("latest")).toEqual(fourth);
        expect(await outbox.stats()).toMatchObject({ count: 2, capacity: 2, dropped: 2 });
      });

      it("drops the oldest past max_bytes whatever the count, counts them, and always keeps the newest", async () => {
        const big = (): CapturedMessage => aMessage({ text: "x".repeat(30_000) });
        const outbox = await makeOutbox({ capacity: 100, maxBytes: 100_000 });
        const messages = [big(), big(), big(), big()];
        for (const message of messages) await outbox.add(message);

        // What one message weighs is the store's own (the memory store adds its search text and index): only the newest that fit stay.
        const stats = await outbox.stats();
        const weight = stats.bytes / stats.count;
        expect(stats).toMatchObject({ dropped: 4 - stats.count, maxBytes: 100_000 });
        expect(stats.count).toBeGreaterThanOrEqual(1);
        expect(stats.count).toBeLessThan(4);
        expect(idsOf(await outbox.list())).toEqual(
          messages
            .slice(-stats.count)
            .reverse()
            .map((message) => message.id),
        );
        expect(stats.bytes).toBeLessThanOrEqual(100_000);
        expect(stats.bytes + weight).toBeGreaterThan(100_000);

        const huge = aMessage({ text: "y".repeat(150_000) });
        await outbox.add(huge);
        expect(idsOf(await outbox.list())).toEqual([huge.id]);
      });

      it("cuts a page at max_page_bytes, saying so, but never below one message", async () => {
        const outbox = await makeOutbox({ capacity: 100, maxPageBytes: 100_000 });
        const messages = Array.from({ length: 5 }, () => aMessage({ text: "x".repeat(40_000) }));
        for (const message of messages) await outbox.add(message);

        const page = await outbox.listSerialized({ limit: 5 });
        expect(page.messages).toHaveLength(2);
        expect(page).toMatchObject({ total: 5, truncated: true });
        expect(await outbox.listSerialized({ limit: 2 })).toMatchObject({ total: 5, truncated: false });
        const tiny = await makeOutbox({ capacity: 100, maxPageBytes: 10 });
        await tiny.add(aMessage());
        expect((await tiny.listSerialized()).messages).toHaveLength(1);
      });

      it("counts nothing as dropped while under capacity", async () => {
        const outbox = await anOutbox([aMessage(), aMessage()], 2);
        expect(await outbox.stats()).toMatchObject({ count: 2, capacity: 2, dropped: 0 });
      });

      it("for any captures past capacity and any filter: lists the same messages, in the same order and with the same total, as a plain filter over the kept ones", async () => {
        const ADDRESSES = ["ada@example.com", "ADA@example.com", "grace@example.com", "linus@example.com"];
        const anAddress = fc.constantFrom(...ADDRESSES);
        const aCapture = fc.record({ to: anAddress, cc: fc.array(anAddress, { maxLength: 2 }), subject: fc.constantFrom("Welcome", "Your receipt", "Reset") });
        const aFilter = fc.record(
          { to: anAddress, recipient: anAddress, subject: fc.constantFrom("welcome", "RE", "zzz"), limit: fc.integer({ min: 1, max: 5 }) },
          { requiredKeys: [] },
        );
        const lower = (value: string | undefined): string | undefined => value?.toLowerCase();

        await fc.assert(
          fc.asyncProperty(
            fc.array(aCapture, { maxLength: 40 }),
            fc.integer({ min: 1, max: 12 }),
            fc.array(aFilter, { minLength: 1, maxLength: 5 }),
            async (captures, capacity, filters) => {
              const messages = captures.map((capture) => aMessage(capture));
              const outbox = await anOutbox(messages, capacity);
              const kept = messages.slice(-capacity).reverse();
              for (const filter of filters) {
                const matching = kept.filter(
                  (message) =>
                    (filter.to === undefined || message.to.toLowerCase() === lower(filter.to)) &&
                    (filter.recipient === undefined || [message.to, ...message.cc].some((address) => address.toLowerCase() === lower(filter.recipient))) &&
                    (filter.subject === undefined || message.subject.toLowerCase().includes(filter.subject.toLowerCase())),
                );
                const list = await outbox.list(filter);
                expect(idsOf(list)).toEqual(idsOf({ messages: matching.slice(0, filter.limit ?? matching.length) }));
                expect(list.total).toBe(matching.length);
              }
              expect(await outbox.stats()).toMatchObject({ count: kept.length, capacity, dropped: messages.length - kept.length });
            },
          ),
          options.propertyRuns === undefined ? {} : { numRuns: options.propertyRuns },
        );
      });
    });

    describe("clearing", () => {
      it("empties the outbox and starts counting drops afresh, so that latest finds nothing", async () => {
        const outbox = await anOutbox([aMessage(), aMessage(), aMessage()], 2);

        await outbox.clear();

        expect(await outbox.list()).toEqual({ messages: [], total: 0 });
        expect(await outbox.get("latest")).toBeUndefined();
        expect(await outbox.stats()).toMatchObject({ count: 0, capacity: 2, dropped: 0 });
      });

      it("keeps capturing after a clear", async () => {
        const outbox = await anOutbox([aMessage()]);
        await outbox.clear();
        const next = aMessage();

        await outbox.add(next);

        expect(idsOf(await outbox.list())).toEqual([next.id]);
      });

      it("tells clear listeners after every clear, until they unsubscribe", async () => {
        const outbox = await anOutbox([aMessage()]);
        let clears = 0;
        const unsubscribe = outbox.onClear(() => {
          clears += 1;
        });

        const firstHeard = nextClear(outbox);
        await outbox.clear();
        await firstHeard;
        expect(clears).toBe(1);

        unsubscribe();
        const secondHeard = nextClear(outbox);
        await outbox.clear();
        await secondHeard;
        expect(clears).toBe(1);
      });
    });

    describe("deleting one message", () => {
      it("deletes a message by id: no read finds it, the others stay in order, and its bytes are given back", async () => {
        const [first, middle, last] = [aMessage(), aMessage({ cc: ["billing@example.com"] }), aMessage()];
        const outbox = await anOutbox([first, last]);
        const bytesWithoutMiddle = (await outbox.stats()).bytes;
        await outbox.clear();
        for (const message of [first, middle, last]) await outbox.add(message);

        expect(await outbox.delete(middle.id)).toBe(middle.id);

        expect(await outbox.get(middle.id)).toBeUndefined();
        expect(await outbox.list()).toMatchObject({ total: 2, messages: [{ id: last.id }, { id: first.id }] });
        expect(idsOf(await outbox.list({ to: "ada@example.com" }))).toEqual([last.id, first.id]);
        expect(await outbox.list({ recipient: "billing@example.com" })).toEqual({ messages: [], total: 0 });
        expect((await outbox.listSerialized({ to: "ada@example.com", limit: 1 })).total).toBe(2);
        expect(await outbox.stats()).toMatchObject({ count: 2, bytes: bytesWithoutMiddle, dropped: 0 });
      });

      it("deletes the newest message for the id latest, so that latest becomes the one before it", async () => {
        const [older, newest] = [aMessage(), aMessage()];
        const outbox = await anOutbox([older, newest]);

        expect(await outbox.delete("latest")).toBe(newest.id);
        expect((await outbox.get("latest"))?.id).toBe(older.id);
      });

      it("answers undefined for an id it does not hold, or latest in an empty outbox, and changes nothing", async () => {
        const message = aMessage();
        const outbox = await anOutbox([message]);
        expect(await outbox.delete("msg_gone")).toBeUndefined();
        expect(await outbox.delete(message.id.slice(0, -1))).toBeUndefined();
        expect(idsOf(await outbox.list())).toEqual([message.id]);

        expect(await (await anOutbox()).delete("latest")).toBeUndefined();
      });

      it("forgets the message's events and status, and gives their bytes back", async () => {
        const message = aMessage();
        const outbox = await anOutbox([message]);
        await outbox.recordEvent(message.id, { type: "message.bounced", at: "2025-03-14T09:00:02.000Z", bounce_type: "hard" }, "bounced");

        await outbox.delete(message.id);

        expect(await outbox.stats()).toMatchObject({ count: 0, bytes: 0 });
        expect(await outbox.list({ status: "bounced" })).toEqual({ messages: [], total: 0 });
        await outbox.add(message);
        expect(await outbox.get(message.id)).toEqual(message);
      });

      it("keeps dropping the oldest past capacity after a delete, within each recipient too", async () => {
        const [first, second, third, fourth] = [aMessage(), aMessage({ to: "grace@example.com" }), aMessage(), aMessage()];
        const outbox = await anOutbox([first, second, third], 3);
        await outbox.delete(second.id);
        await outbox.add(fourth);
        expect(await outbox.add(aMessage({ to: "grace@example.com" }))).toEqual({ dropped: [first.id] });

        expect(idsOf(await outbox.list({ to: "ada@example.com" }))).toEqual([fourth.id, third.id]);
        expect(await outbox.list({ to: "grace@example.com" })).toMatchObject({ total: 1 });
      });
    });
  });
}
