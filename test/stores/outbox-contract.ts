// What every outbox promises, whichever store keeps the messages, in three parts that each store
// runner calls: reading (this file: listing, filters, getting one message, the copies readers
// get), outbox-capacity-contract.ts (capacity, clearing, deleting) and outbox-events-contract.ts
// (waiting, lifecycle events, capture listeners). This file also holds the helpers they share. A
// store with its own process (Redis) tells listeners a moment after `add` resolves, so these tests
// await what they hear.

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Outbox, OutboxLimits } from "../../src/domain/outbox.js";
import type { CapturedMessage } from "../../src/wire.js";

export type MakeOutbox = (options: OutboxLimits) => Promise<Outbox>;

const START = Date.parse("2025-03-14T09:00:00.000Z");
let sequence = 0;

/** A captured message; each one is created one second after the previous one. */
export function aMessage(overrides: Partial<CapturedMessage> = {}): CapturedMessage {
  sequence += 1;
  return {
    id: `msg_${String(sequence)}`,
    status: "queued",
    events: [],
    created_at: new Date(START + sequence * 1000).toISOString(),
    to: "ada@example.com",
    cc: [],
    bcc: [],
    reply_to: null,
    template_id: "welcome",
    subject: "Welcome to Acme, Ada!",
    html: "<p>Hi Ada</p>",
    text: "Hi Ada",
    data: { name: "Ada", company: "Acme" },
    warnings: [],
    links: [],
    api_key_hint: "0001",
    ...overrides,
  };
}

/** Resolves with the next `count` messages the outbox tells its listeners about. */
export function nextCaptures(outbox: Outbox, count: number): Promise<CapturedMessage[]> {
  return new Promise((resolve) => {
    const heard: CapturedMessage[] = [];
    const unsubscribe = outbox.onCapture((message) => {
      heard.push(message);
      if (heard.length < count) return;
      unsubscribe();
      resolve(heard);
    });
  });
}

export function idsOf(list: { messages: CapturedMessage[] }): string[] {
  return list.messages.map((message) => message.id);
}

/** What each part of the contract fills its outboxes with: `messages` captured in turn, in a new outbox of `capacity`. */
export function outboxFiller(makeOutbox: MakeOutbox): (messages?: CapturedMessage[], capacity?: number) => Promise<Outbox> {
  return async function anOutbox(messages: CapturedMessage[] = [], capacity = 100): Promise<Outbox> {
    const outbox = await makeOutbox({ capacity });
    for (const message of messages) await outbox.add(message);
    return outbox;
  };
}

/**
 * Listing with every filter, getting one message, and what a reader gets.
 * @param makeOutbox a new, empty outbox of its own on every call
 */
export function describeOutboxReadingContract(name: string, makeOutbox: MakeOutbox): void {
  const anOutbox = outboxFiller(makeOutbox);

  describe(name, () => {
    describe("listing captured messages", () => {
      it("lists every message newest first, with their total", async () => {
        const [first, second, third] = [aMessage(), aMessage(), aMessage()];
        const outbox = await anOutbox([first, second, third]);

        const list = await outbox.list();

        expect(list.messages).toEqual([third, second, first]);
        expect(list.total).toBe(3);
      });

      it("lists nothing when nothing was captured", async () => {
        const outbox = await anOutbox();
        expect(await outbox.list()).toEqual({ messages: [], total: 0 });
      });

      it("filters on to exactly, ignoring case", async () => {
        const ada = aMessage({ to: "ada@example.com" });
        const adaUpper = aMessage({ to: "ADA@Example.COM" });
        const adam = aMessage({ to: "adam@example.com" });
        const copied = aMessage({ to: "grace@example.com", cc: ["ada@example.com"] });
        const outbox = await anOutbox([ada, adaUpper, adam, copied]);

        expect(idsOf(await outbox.list({ to: "Ada@example.com" }))).toEqual([adaUpper.id, ada.id]);
        expect(idsOf(await outbox.list({ to: "ada@example" }))).toEqual([]);
      });

      it("filters on recipient across to, cc and bcc, ignoring case", async () => {
        const direct = aMessage({ to: "billing@example.com" });
        const copied = aMessage({ to: "ada@example.com", cc: ["grace@example.com", "Billing@Example.com"] });
        const blind = aMessage({ to: "ada@example.com", bcc: ["billing@example.com"] });
        const other = aMessage({ to: "ada@example.com", cc: ["billing2@example.com"] });
        const outbox = await anOutbox([direct, copied, blind, other]);

        const list = await outbox.list({ recipient: "BILLING@example.com" });

        expect(idsOf(list)).toEqual([blind.id, copied.id, direct.id]);
        expect(list.total).toBe(3);
      });

      it("filters on the template id", async () => {
        const welcome = aMessage({ template_id: "welcome" });
        const receipt = aMessage({ template_id: "order-receipt" });
        const outbox = await anOutbox([welcome, receipt]);

        expect(idsOf(await outbox.list({ templateId: "order-receipt" }))).toEqual([receipt.id]);
        expect(idsOf(await outbox.list({ templateId: "order" }))).toEqual([]);
      });

      it("filters on a substring of the subject, ignoring case", async () => {
        const order = aMessage({ subject: "Your receipt for order #1042" });
        const other = aMessage({ subject: "Welcome aboard" });
        const outbox = await anOutbox([order, other]);

        expect(idsOf(await outbox.list({ subject: "ORDER #10" }))).toEqual([order.id]);
        expect(idsOf(await outbox.list({ subject: "invoice" }))).toEqual([]);
      });

      it("searches q, ignoring case, in to, cc, bcc, reply_to, subject, text, html and data values", async () => {
        const byField = {
          to: aMessage({ to: "Zed.To@example.com" }),
          cc: aMessage({ cc: ["zed.cc@example.com"] }),
          bcc: aMessage({ bcc: ["zed.bcc@example.com"] }),
          replyTo: aMessage({ reply_to: "zed.reply@example.com" }),
          subject: aMessage({ subject: "Zed subject line" }),
          text: aMessage({ text: "Zed text body" }),
          html: aMessage({ html: "<p>Zed html body</p>" }),
          data: aMessage({ data: { skus: ["A-1", "ZED-DATA-7"], order_number: "1042" } }),
        };
        const outbox = await anOutbox([...Object.values(byField), aMessage()]);

        expect(idsOf(await outbox.list({ q: "zed.to" }))).toEqual([byField.to.id]);
        expect(idsOf(await outbox.list({ q: "ZED.CC" }))).toEqual([byField.cc.id]);
        expect(idsOf(await outbox.list({ q: "zed.bcc" }))).toEqual([byField.bcc.id]);
        expect(idsOf(await outbox.list({ q: "zed.reply" }))).toEqual([byField.replyTo.id]);
        expect(idsOf(await outbox.list({ q: "zed subject" }))).toEqual([byField.subject.id]);
        expect(idsOf(await outbox.list({ q: "zed text" }))).toEqual([byField.text.id]);
        expect(idsOf(await outbox.list({ q: "zed html" }))).toEqual([byField.html.id]);
        expect(idsOf(await outbox.list({ q: "zed-data-7" }))).toEqual([byField.data.id]);
        expect(idsOf(await outbox.list({ q: "1042" }))).toEqual([byField.data.id]);
        expect((await outbox.list({ q: "zed" })).total).toBe(8);
        expect((await outbox.list({ q: "nowhere to be found" })).total).toBe(0);
      });

      it("searches field values only, never the field names", async () => {
        const outbox = await anOutbox([aMessage({ data: { secret_code: "x" } })]);

        expect((await outbox.list({ q: "secret_code" })).total).toBe(0);
        expect((await outbox.list({ q: "subject" })).total).toBe(0);
      });

      it("combines q with the other filters, status, limit and total", async () => {
        const [first, second, third, other] = [
          aMessage({ subject: "Order 1" }),
          aMessage({ subject: "Order 2" }),
          aMessage({ subject: "Order 3" }),
          aMessage({ to: "grace@example.com", subject: "Order 4" }),
        ];
        const outbox = await anOutbox([first, second, third, other, aMessage({ subject: "Welcome" })]);
        const bounced = { type: "message.bounced", at: "2025-03-14T09:00:02.000Z", bounce_type: "hard" } as const;
        await outbox.recordEvent(first.id, bounced, "bounced");
        await outbox.recordEvent(third.id, bounced, "bounced");

        expect(await outbox.list({ q: "order", to: "ada@example.com", limit: 2 })).toMatchObject({ total: 3, messages: [{ id: third.id }, { id: second.id }] });
        expect(await outbox.list({ q: "ORDER", status: "bounced", limit: 1 })).toMatchObject({ total: 2, messages: [{ id: third.id }] });
        expect((await outbox.listSerialized({ q: "order", recipient: "grace@example.com" })).total).toBe(1);
      });

      it("gives back every byte a searchable message held once it is deleted, dropped or cleared", async () => {
        const shipment = (number: number): CapturedMessage =>
          aMessage({
            subject: `Shipment ${String(number)} of wombats`,
            text: `Tracking TRK-${"7".repeat(number)}-Ω`,
            data: { note: `Grüße № ${String(number)}` },
          });
        const [first, second, third] = [shipment(1), shipment(2), shipment(3)];
        const outbox = await makeOutbox({ capacity: 2 });
        // A store may build what it searches with at the first search: from here on it holds it.
        const searched = async (kept: Outbox): Promise<Outbox> => {
          await kept.list({ q: "wombats" });
          return kept;
        };
        await searched(outbox);
        await outbox.add(first);
        const bytesOfFirst = (await outbox.stats()).bytes;

        await outbox.add(second);
        await outbox.delete(second.id);
        expect((await outbox.stats()).bytes).toBe(bytesOfFirst);
        expect((await outbox.list({ q: "trk-77-" })).total).toBe(0);

        await outbox.add(second);
        await outbox.add(third);
        const onlyThese = await searched(await anOutbox([]));
        await onlyThese.add(second);
        await onlyThese.add(third);
        expect(await outbox.stats()).toMatchObject({ count: 2, dropped: 1, bytes: (await onlyThese.stats()).bytes });
        expect(idsOf(await outbox.list({ q: "SHIPMENT" }))).toEqual([third.id, second.id]);

        await outbox.clear();
        await searched(outbox);
        await outbox.add(first);
        expect((await outbox.stats()).bytes).toBe(bytesOfFirst);
      });

      it("for any captures, deletes and drops past capacity and any q: finds what a plain scan of the kept messages' text finds, in the same order", async () => {
        // Few pieces, so that texts share words; mixed case and letters whose lowercase is longer or depends on the place (İ, Σ).
        const aText = fc
          .array(fc.constantFrom("ab", "AB", "ba", "c", "-", " ", "ω", "Σ", "İ", "ß", "\u{1f600}", "7"), { maxLength: 8 })
          .map((pieces) => pieces.join(""));
        const ADDRESSES = ["ada@example.com", "Grace@Example.com"];
        const aCapture = fc.record({
          to: fc.constantFrom(...ADDRESSES),
          subject: aText,
          text: aText,
          html: aText,
          data: fc.record({ note: aText, tags: fc.array(aText, { maxLength: 2 }) }),
          deleted: fc.boolean(),
        });
        const aSearch = fc.record({ q: aText, to: fc.option(fc.constantFrom(...ADDRESSES), { nil: undefined }), limit: fc.integer({ min: 1, max: 4 }) });
        const textOf = (message: CapturedMessage): string =>
          [
            message.to,
            ...message.cc,
            ...message.bcc,
            message.reply_to ?? "",
            message.subject,
            message.text ?? "",
            message.html ?? "",
            ...Object.values(message.data).flat(),
          ]
            .join("\n")
            .toLowerCase();

        await fc.assert(
          fc.asyncProperty(
            fc.array(aCapture, { maxLength: 25 }),
            fc.integer({ min: 1, max: 10 }),
            fc.array(aSearch, { minLength: 1, maxLength: 6 }),
            async (captures, capacity, searches) => {
              const outbox = await makeOutbox({ capacity });
              let kept: CapturedMessage[] = [];
              for (const { deleted, ...capture } of captures) {
                const message = aMessage(capture);
                await outbox.add(message);
                kept = [message, ...kept].slice(0, capacity);
                if (!deleted) continue;
                await outbox.delete(message.id);
                kept = kept.slice(1);
              }
              for (const search of searches) {
                const matching = kept.filter(
                  (message) =>
                    textOf(message).includes(search.q.toLowerCase()) && (search.to === undefined || message.to.toLowerCase() === search.to.toLowerCase()),
                );
                expect(await outbox.list(search)).toEqual({ messages: matching.slice(0, search.limit), total: matching.length });
              }
            },
          ),
          { numRuns: 60 },
        );
      });

      it("resolves a wait for a q when a matching message is captured", async () => {
        const outbox = await anOutbox([aMessage()]);
        const waiting = outbox.waitFor({ q: "reset your password" }, { timeoutMs: 5000 });
        const match = aMessage({ text: "Click here to RESET your password" });
        await outbox.add(aMessage());
        await outbox.add(match);

        expect(await waiting).toMatchObject({ id: match.id });
      });

      it("keeps messages created at or after since, given as a Date or an ISO string", async () => {
        const old = aMessage();
        const cutoff = aMessage();
        const recent = aMessage();
        const outbox = await anOutbox([old, cutoff, recent]);

        expect(idsOf(await outbox.list({ since: cutoff.created_at }))).toEqual([recent.id, cutoff.id]);
        expect(idsOf(await outbox.list({ since: new Date(cutoff.created_at) }))).toEqual([recent.id, cutoff.id]);
        const sameInstantElsewhere = new Date(Date.parse(cutoff.created_at) + 2 * 3600_000).toISOString().replace("Z", "+02:00");
        expect(idsOf(await outbox.list({ since: sameInstantElsewhere }))).toEqual([recent.id, cutoff.id]);
      });

      it("combines filters: a message must match every one", async () => {
        const match = aMessage({ to: "ada@example.com", template_id: "order-receipt", subject: "Order 1" });
        const wrongTemplate = aMessage({ to: "ada@example.com", template_id: "welcome", subject: "Order 2" });
        const wrongTo = aMessage({ to: "grace@example.com", template_id: "order-receipt", subject: "Order 3" });
        const outbox = await anOutbox([match, wrongTemplate, wrongTo]);

        expect(idsOf(await outbox.list({ to: "ada@example.com", templateId: "order-receipt", subject: "order" }))).toEqual([match.id]);
      });

      it("returns at most limit messages, the newest, while total counts every match", async () => {
        const messages = [aMessage(), aMessage(), aMessage(), aMessage({ template_id: "other" }), aMessage({ to: "grace@example.com" })];
        const outbox = await anOutbox(messages);

        const byTemplate = await outbox.list({ templateId: "welcome", limit: 2 });
        const byTo = await outbox.list({ to: "ada@example.com", limit: 1 });

        expect(idsOf(byTemplate)).toEqual([messages[4]?.id, messages[2]?.id]);
        expect(byTemplate.total).toBe(4);
        expect(idsOf(byTo)).toEqual([messages[3]?.id]);
        expect(byTo.total).toBe(4);
      });

      it("lists the same page as JSON text, for answers that write it as stored", async () => {
        const outbox = await anOutbox([aMessage({ to: "grace@example.com" }), aMessage(), aMessage({ subject: 'Ünïcode "quoted" </script>' })]);
        const filter = { to: "ada@example.com", limit: 5 };

        const serialized = await outbox.listSerialized(filter);

        expect({ messages: serialized.messages.map((json) => JSON.parse(json) as unknown), total: serialized.total }).toEqual(await outbox.list(filter));
        expect(serialized.total).toBe(2);
      });
    });

    describe("getting one message", () => {
      it("finds a message by its id", async () => {
        const [first, second] = [aMessage(), aMessage()];
        const outbox = await anOutbox([first, second]);

        expect(await outbox.get(first.id)).toEqual(first);
        expect(await outbox.get("msg_unknown")).toBeUndefined();
      });

      it("gives the newest message for the id latest", async () => {
        const outbox = await anOutbox();
        expect(await outbox.get("latest")).toBeUndefined();

        const [first, second] = [aMessage(), aMessage()];
        await outbox.add(first);
        await outbox.add(second);

        expect(await outbox.get("latest")).toEqual(second);
      });
    });

    describe("what a reader gets", () => {
      it("gives each reader its own copy: changing one changes nothing captured", async () => {
        const outbox = await anOutbox([aMessage({ subject: "Original" })]);

        const got = await outbox.get("latest");
        const [listed] = (await outbox.list()).messages;
        const waitedFor = await outbox.waitFor({}, { timeoutMs: 1_000 });
        for (const read of [got, listed, waitedFor]) {
          if (!read) throw new Error("nothing captured");
          read.subject = "Changed";
          read.cc.push("mallory@example.com");
        }

        expect(await outbox.get("latest")).toMatchObject({ subject: "Original", cc: [] });
      });

      it("keeps what was captured when the sender changes its message afterwards", async () => {
        const message = aMessage({ subject: "Original" });
        const outbox = await anOutbox([message]);

        message.subject = "Changed";
        message.data.name = "Mallory";

        expect(await outbox.get(message.id)).toMatchObject({ subject: "Original", data: { name: "Ada" } });
      });
    });
  });
}
