// What every outbox promises about time and listeners: waiting for a message, lifecycle events
// and capture listeners. Part of the outbox contract that each store runner calls (see
// outbox-contract.ts).

import { describe, expect, it } from "vitest";
import { WaitTimeoutError } from "../../src/domain/outbox.js";
import type { CapturedMessage } from "../../src/wire.js";
import { aMessage, idsOf, nextCaptures, outboxFiller, type MakeOutbox } from "./outbox-contract.js";

const PENDING = Symbol("pending");

/** Whether `promise` is still unsettled, without waiting for it. */
async function stillPending(promise: Promise<unknown>): Promise<boolean> {
  // An already settled promise wins the race: its reaction is queued before the marker's.
  return (await Promise.race([promise, Promise.resolve(PENDING)]).catch(() => undefined)) === PENDING;
}

/** @param makeOutbox a new, empty outbox of its own on every call */
export function describeOutboxEventsContract(name: string, makeOutbox: MakeOutbox): void {
  const anOutbox = outboxFiller(makeOutbox);

  describe(name, () => {
    describe("waiting for a message", () => {
      it("resolves at once with the newest match already captured", async () => {
        const older = aMessage({ to: "ada@example.com" });
        const newer = aMessage({ to: "ada@example.com" });
        const outbox = await anOutbox([older, newer, aMessage({ to: "grace@example.com" })]);

        // Past the test's own timeout: a wait for a later capture fails the test instead of resolving.
        const found = await outbox.waitFor({ to: "ada@example.com" }, { timeoutMs: 60_000 });

        expect(found).toEqual(newer);
      });

      it("resolves when a matching message is captured later, ignoring messages that do not match", async () => {
        const outbox = await anOutbox();
        const waiting = outbox.waitFor({ to: "grace@example.com" }, { timeoutMs: 60_000 });

        const othersHeard = nextCaptures(outbox, 2);
        await outbox.add(aMessage({ to: "ada@example.com" }));
        await outbox.add(aMessage({ to: "ada@example.com", cc: ["grace@example.com"] }));
        await othersHeard;
        expect(await stillPending(waiting)).toBe(true);

        const match = aMessage({ to: "Grace@example.com" });
        await outbox.add(match);

        await expect(waiting).resolves.toEqual(match);
      });

      it("rejects with a WaitTimeoutError naming the filter when nothing matches within timeoutMs", async () => {
        const outbox = await anOutbox([aMessage({ to: "ada@example.com" })]);

        const started = performance.now();
        const waiting = outbox.waitFor({ to: "nobody@example.com", templateId: "welcome" }, { timeoutMs: 50 });
        await outbox.add(aMessage({ to: "someone-else@example.com" }));

        await expect(waiting).rejects.toThrow(WaitTimeoutError);
        await expect(waiting).rejects.toThrow(/no message with to=nobody@example\.com, template_id=welcome was captured within 50 ms \(2 captured\)/);
        expect(performance.now() - started).toBeGreaterThanOrEqual(45);
      });

      it("rejects at once when the signal is already aborted", async () => {
        const outbox = await anOutbox();
        const reason = new Error("test is over");

        const waiting = outbox.waitFor({ to: "ada@example.com" }, { timeoutMs: 60_000, signal: AbortSignal.abort(reason) });

        await expect(waiting).rejects.toBe(reason);
      });

      it("rejects when the signal is aborted during the wait, and a later match changes nothing", async () => {
        const outbox = await anOutbox();
        const controller = new AbortController();
        const waiting = outbox.waitFor({ to: "ada@example.com" }, { timeoutMs: 60_000, signal: controller.signal });

        controller.abort(new Error("client went away"));

        await expect(waiting).rejects.toThrow("client went away");
        const heard = nextCaptures(outbox, 1);
        await outbox.add(aMessage({ to: "ada@example.com" }));
        await heard;
        await expect(waiting).rejects.toThrow("client went away");
      });

      it("resolves many waiters on the same capture", async () => {
        const outbox = await anOutbox();
        const byTo = outbox.waitFor({ to: "ada@example.com" }, { timeoutMs: 60_000 });
        const byTemplate = outbox.waitFor({ templateId: "welcome" }, { timeoutMs: 60_000 });
        const message = aMessage({ to: "ada@example.com", template_id: "welcome" });

        await outbox.add(message);

        expect(await Promise.all([byTo, byTemplate])).toEqual([message, message]);
      });
    });

    describe("lifecycle events", () => {
      const sent = { type: "message.sent", at: "2025-03-14T09:00:01.000Z" } as const;
      const bounced = { type: "message.bounced", at: "2025-03-14T09:00:02.000Z", bounce_type: "hard" } as const;

      it("appends an event and moves the status, as every read shows", async () => {
        const message = aMessage();
        const outbox = await anOutbox([message]);

        const recorded = await outbox.recordEvent(message.id, sent, "sent");
        await outbox.recordEvent(message.id, bounced, "bounced");
        // Read after the next event was recorded, it is still the message as that event left it.
        expect(recorded?.message()).toEqual({ ...message, status: "sent", events: [sent] });

        const expected = { ...message, status: "bounced", events: [sent, bounced] };
        expect(await outbox.get(message.id)).toEqual(expected);
        expect(await outbox.get("latest")).toEqual(expected);
        expect((await outbox.list()).messages).toEqual([expected]);
        expect((await outbox.listSerialized()).messages.map((json) => JSON.parse(json) as unknown)).toEqual([expected]);
      });

      it("answers undefined for a message that is not there, and keeps nothing of it", async () => {
        const outbox = await anOutbox([aMessage()]);
        expect(await outbox.recordEvent("msg_gone", sent, "sent")).toBeUndefined();
        expect(await outbox.get("msg_gone")).toBeUndefined();
      });

      it("with maxEvents, appends none past it however many are recorded at once, and answers undefined for those", async () => {
        const message = aMessage();
        const outbox = await anOutbox([message]);

        const recorded = await Promise.all(Array.from({ length: 30 }, () => outbox.recordEvent(message.id, sent, "sent", 10)));

        expect(recorded.filter((event) => event !== undefined)).toHaveLength(10);
        expect((await outbox.get(message.id))?.events).toHaveLength(10);
      });

      it("counts the events' bytes", async () => {
        const message = aMessage();
        const outbox = await anOutbox([message]);
        const before = (await outbox.stats()).bytes;
        await outbox.recordEvent(message.id, sent, "sent");
        expect((await outbox.stats()).bytes).toBeGreaterThan(before);
      });

      it("filters on status, with the other filters, limit and total", async () => {
        const [first, second, third, other] = [aMessage(), aMessage(), aMessage(), aMessage({ to: "grace@example.com" })];
        const outbox = await anOutbox([first, second, third, other]);
        for (const message of [first, third, other]) await outbox.recordEvent(message.id, bounced, "bounced");

        expect(idsOf(await outbox.list({ status: "bounced" }))).toEqual([other.id, third.id, first.id]);
        expect(idsOf(await outbox.list({ status: "queued" }))).toEqual([second.id]);
        expect(await outbox.list({ status: "bounced", to: "ada@example.com", limit: 1 })).toMatchObject({ total: 2, messages: [{ id: third.id }] });
        expect((await outbox.listSerialized({ status: "delivered" })).total).toBe(0);
      });

      it("tells event listeners the message as it is now and the event", async () => {
        const message = aMessage();
        const outbox = await anOutbox([message]);
        const heard = new Promise<[unknown, unknown]>((resolve) => {
          const unsubscribe = outbox.onEvent((after, event) => {
            unsubscribe();
            resolve([after, event]);
          });
        });
        await outbox.recordEvent(message.id, sent, "sent");
        expect(await heard).toEqual([{ ...message, status: "sent", events: [sent] }, sent]);
      });

      it("resolves a wait for a status when a message reaches it", async () => {
        const message = aMessage({ to: "wait@example.com" });
        const outbox = await anOutbox([message]);
        const waiting = outbox.waitFor({ to: "wait@example.com", status: "bounced" }, { timeoutMs: 5000 });
        expect(await stillPending(waiting)).toBe(true);
        await outbox.recordEvent(message.id, sent, "sent");
        await outbox.recordEvent(message.id, bounced, "bounced");
        expect(await waiting).toMatchObject({ id: message.id, status: "bounced" });
      });

      it("answers the ids it dropped for room", async () => {
        const [first, second, third] = [aMessage(), aMessage(), aMessage()];
        const outbox = await anOutbox([first], 2);
        expect(await outbox.add(second)).toEqual({ dropped: [] });
        expect(await outbox.add(third)).toEqual({ dropped: [first.id] });
      });

      it("keeps messages and their events within max_bytes: an event past it drops the oldest, and answers their ids", async () => {
        const outbox = await makeOutbox({ capacity: 100, maxBytes: 100_000 });
        const messages = [aMessage({ text: "x".repeat(3_000) }), aMessage({ text: "x".repeat(3_000) }), aMessage()];
        for (const message of messages) await outbox.add(message);
        const [oldest, middle, newest] = messages as [CapturedMessage, CapturedMessage, CapturedMessage];
        const click = { type: "message.clicked", at: "2025-03-14T09:00:03.000Z", link: `https://a.example/${"l".repeat(5_000)}` } as const;

        // 19 clicks of 5 KB: the newest message alone stays under the bound, with the others it does not.
        const dropped: string[] = [];
        for (let index = 0; index < 19; index += 1) dropped.push(...((await outbox.recordEvent(newest.id, click, "clicked"))?.dropped ?? []));

        const stats = await outbox.stats();
        expect(stats.bytes).toBeLessThanOrEqual(100_000);
        expect(dropped[0]).toBe(oldest.id);
        expect([oldest.id, middle.id]).toEqual(expect.arrayContaining(dropped));
        expect(stats).toMatchObject({ count: 3 - dropped.length, dropped: dropped.length });
        expect(idsOf(await outbox.list())).toEqual([newest, middle].slice(0, 3 - dropped.length).map((message) => message.id));
        expect((await outbox.get(newest.id))?.events).toHaveLength(19);
      });

      it("forgets a message's events when it is cleared", async () => {
        const message = aMessage();
        const outbox = await anOutbox([message]);
        await outbox.recordEvent(message.id, sent, "sent");
        await outbox.clear();
        await outbox.add(message);
        expect(await outbox.get(message.id)).toEqual(message);
      });
    });

    describe("capture listeners", () => {
      it("calls a listener for every message captured until it unsubscribes", async () => {
        const outbox = await anOutbox();
        const earlierHeard = nextCaptures(outbox, 1);
        await outbox.add(aMessage());
        await earlierHeard;

        const seen: string[] = [];
        const unsubscribe = outbox.onCapture((message) => seen.push(message.id));
        const [first, second] = [aMessage(), aMessage()];
        const bothHeard = nextCaptures(outbox, 2);
        await outbox.add(first);
        await outbox.add(second);
        await bothHeard;
        unsubscribe();
        const laterHeard = nextCaptures(outbox, 1);
        await outbox.add(aMessage());
        await laterHeard;

        expect(seen).toEqual([first.id, second.id]);
      });

      it("hands listeners the message as captured", async () => {
        const outbox = await anOutbox();
        const message = aMessage({ cc: ["grace@example.com"], data: { name: "Ada", items: ["A-1", "B-2"] } });

        const heard = nextCaptures(outbox, 1);
        await outbox.add(message);

        expect(await heard).toEqual([message]);
      });

      it("keeps the other listeners when one unsubscribes", async () => {
        const outbox = await anOutbox();
        const dropped: string[] = [];
        const kept = nextCaptures(outbox, 1);
        const unsubscribe = outbox.onCapture((message) => dropped.push(message.id));

        unsubscribe();
        const message = aMessage();
        await outbox.add(message);

        expect((await kept).map((heard) => heard.id)).toEqual([message.id]);
        expect(dropped).toEqual([]);
      });
    });
  });
}
