// What every outbox promises, whichever store keeps the messages: capture, filters, the
// capacity bound, waiting for a message and telling listeners. A store with its own process
// (Redis) tells listeners a moment after `add` resolves, so these tests await what they hear.

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { WaitTimeoutError, type Outbox, type OutboxLimits } from "../../src/domain/outbox.js";
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

function nextClear(outbox: Outbox): Promise<void> {
  return new Promise((resolve) => {
    const unsubscribe = outbox.onClear(() => {
      unsubscribe();
      resolve();
    });
  });
}

const PENDING = Symbol("pending");

/** Whether `promise` is still unsettled, without waiting for it. */
async function stillPending(promise: Promise<unknown>): Promise<boolean> {
  // An already settled promise wins the race: its reaction is queued before the marker's.
  return (await Promise.race([promise, Promise.resolve(PENDING)]).catch(() => undefined)) === PENDING;
}

function idsOf(list: { messages: CapturedMessage[] }): string[] {
  return list.messages.map((message) => message.id);
}

/**
 * @param makeOutbox a new, empty outbox of its own on every call
 * @param propertyRuns how many random histories the model test tries (fewer for a slower store)
 */
export function describeOutboxContract(name: string, makeOutbox: MakeOutbox, options: { propertyRuns?: number } = {}): void {
  async function anOutbox(messages: CapturedMessage[] = [], capacity = 100): Promise<Outbox> {
    const outbox = await makeOutbox({ capacity });
    for (const message of messages) await outbox.add(message);
    return outbox;
  }

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

    describe("waiting for a message", () => {
      it("resolves at once with the newest match already captured", async () => {
        const older = aMessage({ to: "ada@example.com" });
        const newer = aMessage({ to: "ada@example.com" });
        const outbox = await anOutbox([older, newer, aMessage({ to: "grace@example.com" })]);

        const started = performance.now();
        const found = await outbox.waitFor({ to: "ada@example.com" }, { timeoutMs: 5_000 });

        expect(found).toEqual(newer);
        expect(performance.now() - started).toBeLessThan(1_000);
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
        await expect(waiting).rejects.toThrow(/no message with to=nobody@example\.com, templateId=welcome was captured within 50 ms \(2 captured\)/);
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
