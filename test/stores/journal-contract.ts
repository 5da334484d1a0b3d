// What every request journal promises, whichever store keeps it: newest first, bounded,
// clearable, observable. Listeners of a store in another process hear a moment after
// `record` resolves, so these tests await what they hear.

import { describe, expect, it } from "vitest";
import type { Journal, JournalLimits } from "../../src/domain/journal.js";
import type { JournalEntry } from "../../src/wire.js";
import { anAcceptedSendEntry } from "../support/journal-entries.js";

export type MakeJournal = (options: JournalLimits) => Promise<Journal>;

let sequence = 0;

export function anEntry(overrides: Partial<JournalEntry> = {}): JournalEntry {
  sequence += 1;
  return anAcceptedSendEntry({
    id: `req_${String(sequence)}`,
    at: new Date(Date.parse("2025-03-14T09:00:00.000Z") + sequence * 1000).toISOString(),
    fault: null,
    message_id: `msg_${String(sequence)}`,
    duration_ms: 1.5,
    api_key_hint: "0001",
    request: {
      headers: { host: "127.0.0.1:4010", authorization: "Bearer …0001", "content-type": "application/json" },
      body: '{"to":"ada@example.com","template_id":"welcome","data":{}}',
      body_truncated: false,
    },
    response: {
      status: 200,
      headers: { "content-type": "application/json; charset=utf-8" },
      body: `{"success":true,"message_id":"msg_${String(sequence)}"}`,
      body_truncated: false,
    },
    client_gone: false,
    idempotent_replay: false,
    ...overrides,
  });
}

/** Resolves with the next `count` entries the journal tells its listeners about. */
export function nextRecords(journal: Journal, count: number): Promise<JournalEntry[]> {
  return new Promise((resolve) => {
    const heard: JournalEntry[] = [];
    const unsubscribe = journal.onRecord((entry) => {
      heard.push(entry);
      if (heard.length < count) return;
      unsubscribe();
      resolve(heard);
    });
  });
}

function idsOf(list: { requests: JournalEntry[] }): string[] {
  return list.requests.map((entry) => entry.id);
}

/** @param makeJournal a new, empty journal of its own on every call */
export function describeJournalContract(name: string, makeJournal: MakeJournal): void {
  async function aJournal(entries: JournalEntry[] = [], capacity = 100): Promise<Journal> {
    const journal = await makeJournal({ capacity });
    for (const entry of entries) await journal.record(entry);
    return journal;
  }

  describe(name, () => {
    describe("recording requests", () => {
      it("lists every entry newest first, with the total", async () => {
        const accepted = anEntry();
        const rejected = anEntry({
          status: 422,
          error_code: "invalid_recipient",
          error_message: 'Invalid recipient email address in to ("x")',
          violations: [{ path: "/to", message: "to is not a valid email address" }],
          message_id: null,
        });
        const journal = await aJournal([accepted, rejected]);

        expect(await journal.list()).toEqual({ requests: [rejected, accepted], total: 2, truncated: false });
      });

      it("lists nothing before the first request", async () => {
        const journal = await aJournal();
        expect(await journal.list()).toEqual({ requests: [], total: 0, truncated: false });
      });

      it("returns at most limit entries, the newest, while total counts every entry", async () => {
        const entries = [anEntry(), anEntry(), anEntry(), anEntry()];
        const journal = await aJournal(entries);

        const list = await journal.list({ limit: 2 });

        expect(idsOf(list)).toEqual([entries[3]?.id, entries[2]?.id]);
        expect(list.total).toBe(4);
        expect(idsOf(await journal.list({ limit: 10 }))).toHaveLength(4);
      });
    });

    describe("capacity", () => {
      it("keeps only the newest entries up to capacity", async () => {
        const entries = [anEntry(), anEntry(), anEntry(), anEntry(), anEntry()];
        const journal = await aJournal(entries, 3);

        const list = await journal.list();

        expect(idsOf(list)).toEqual([entries[4]?.id, entries[3]?.id, entries[2]?.id]);
        expect(list.total).toBe(3);
      });

      it("drops the oldest entries past max_bytes, always keeping the newest", async () => {
        const journal = await makeJournal({ capacity: 100, maxBytes: 30_000 });
        const entries = Array.from({ length: 5 }, () => anEntry({ error_message: "e".repeat(10_000) }));
        for (const entry of entries) await journal.record(entry);

        const list = await journal.list();
        expect(idsOf(list)).toEqual([entries[4]?.id, entries[3]?.id]);
        expect(list.total).toBe(2);
      });

      it("counts the raw request and answer of an entry toward max_bytes", async () => {
        const journal = await makeJournal({ capacity: 100, maxBytes: 200_000 });
        const largeBody = "b".repeat(64 * 1024);
        const entries = Array.from({ length: 5 }, () =>
          anEntry({
            request: { headers: {}, body: largeBody, body_truncated: true },
            response: { status: 200, headers: {}, body: "{}", body_truncated: false },
          }),
        );
        for (const entry of entries) await journal.record(entry);

        const list = await journal.list();
        expect(idsOf(list)).toEqual([entries[4]?.id, entries[3]?.id, entries[2]?.id]);
        expect(list.requests[0]?.request).toEqual({ headers: {}, body: largeBody, body_truncated: true });
      });

      it("cuts a page at max_page_bytes and says so", async () => {
        const journal = await makeJournal({ capacity: 100, maxPageBytes: 25_000 });
        const entries = Array.from({ length: 4 }, () => anEntry({ error_message: "e".repeat(10_000) }));
        for (const entry of entries) await journal.record(entry);

        const page = await journal.list();
        expect(idsOf(page)).toEqual([entries[3]?.id, entries[2]?.id]);
        expect(page).toMatchObject({ total: 4, truncated: true });
        expect(await journal.list({ limit: 1 })).toMatchObject({ total: 4, truncated: false });
      });

      it("stays bounded over many more requests than its capacity", async () => {
        const entries = Array.from({ length: 250 }, () => anEntry());
        const journal = await aJournal(entries, 5);

        const list = await journal.list();

        expect(idsOf(list)).toEqual(
          entries
            .slice(-5)
            .reverse()
            .map((entry) => entry.id),
        );
        expect(list.total).toBe(5);
        expect(idsOf(await journal.list({ limit: 2 }))).toEqual(
          entries
            .slice(-2)
            .reverse()
            .map((entry) => entry.id),
        );
      });
    });

    describe("clearing", () => {
      it("empties the journal and keeps recording afterwards", async () => {
        const journal = await aJournal([anEntry(), anEntry()]);

        await journal.clear();
        expect(await journal.list()).toEqual({ requests: [], total: 0, truncated: false });

        const next = anEntry();
        await journal.record(next);
        expect(await journal.list()).toEqual({ requests: [next], total: 1, truncated: false });
      });
    });

    describe("record listeners", () => {
      it("calls a listener for every entry recorded until it unsubscribes", async () => {
        const journal = await aJournal();
        const earlierHeard = nextRecords(journal, 1);
        await journal.record(anEntry());
        await earlierHeard;

        const seen: string[] = [];
        const unsubscribe = journal.onRecord((entry) => seen.push(entry.id));
        const [first, second] = [anEntry(), anEntry()];
        const bothHeard = nextRecords(journal, 2);
        await journal.record(first);
        await journal.record(second);
        await bothHeard;
        unsubscribe();
        const laterHeard = nextRecords(journal, 1);
        await journal.record(anEntry());
        await laterHeard;

        expect(seen).toEqual([first.id, second.id]);
      });

      it("hands listeners the entry as recorded", async () => {
        const journal = await aJournal();
        const faulted = anEntry({ status: 503, error_code: "server_error", error_message: "Injected fault", fault: "server_error", message_id: null });

        const heard = nextRecords(journal, 1);
        await journal.record(faulted);

        expect(await heard).toEqual([faulted]);
      });

      it("keeps an entry without an answer as recorded: no response, the client gone, the message it captured", async () => {
        const journal = await aJournal();
        const abandoned = anEntry({ status: 0, fault: "latency", message_id: "msg_captured", response: null, client_gone: true });

        const heard = nextRecords(journal, 1);
        await journal.record(abandoned);

        expect(await heard).toEqual([abandoned]);
        expect((await journal.list()).requests).toEqual([abandoned]);
      });
    });
  });
}
