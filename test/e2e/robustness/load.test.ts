// Nothing is lost under load: 5,000 sends from 100 concurrent connections over a real socket are
// each responded, captured once under a unique id and journaled; past capacity the oldest are
// dropped and counted, and the sends still succeed.

import { afterEach, describe, expect, it } from "vitest";
import { startSendMock, type ConfigView, type RunningSendMock } from "../../../src/index.js";
import { messageIdOf, recipientOf, sendConcurrently, type LoadRun } from "./load-client.js";

const SENDS = 5_000;
const CONCURRENCY = 100;
// 5,000 sends take a few seconds on two idle cores; the margin is for cores shared with other work.
const LOAD_TEST_TIMEOUT_MS = 120_000;

const mocks: RunningSendMock[] = [];

afterEach(async () => {
  await Promise.all(mocks.splice(0).map((mock) => mock.close()));
});

async function aListeningMock(capacity: number): Promise<RunningSendMock> {
  const mock = await startSendMock({ port: 0, capacity, watchTemplates: false });
  mocks.push(mock);
  return mock;
}

function failuresOf(run: LoadRun): string[] {
  return run.results.flatMap((result) => (result.kind === "failed" ? [`#${result.index}: ${result.code}`] : []));
}

function statusCounts(run: LoadRun): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const result of run.results) {
    const key = result.kind === "answered" ? String(result.status) : result.code;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

/** Message id by send index, for every 200 response. */
function respondedIds(run: LoadRun): Map<number, string> {
  const ids = new Map<number, string>();
  for (const result of run.results) {
    const id = messageIdOf(result);
    if (id !== undefined) ids.set(result.index, id);
  }
  return ids;
}

function reportThroughput(label: string, run: LoadRun): void {
  const seconds = run.elapsedMs / 1000;
  console.info(`${label}: ${run.results.length} sends in ${seconds.toFixed(2)} s, ${Math.round(run.results.length / seconds)} req/s`);
}

describe(`${SENDS} sends at concurrency ${CONCURRENCY}`, () => {
  it(
    "answers every send 200 with its own id, and captures and journals each one",
    async () => {
      const mock = await aListeningMock(10_000);

      const run = await sendConcurrently({ url: mock.url, concurrency: CONCURRENCY, total: SENDS });
      reportThroughput("load within capacity", run);

      expect(failuresOf(run)).toEqual([]);
      expect(statusCounts(run)).toEqual({ "200": SENDS });
      const ids = respondedIds(run);
      expect(ids.size).toBe(SENDS);
      expect(new Set(ids.values()).size).toBe(SENDS);

      expect(await mock.outbox.stats()).toMatchObject({ count: SENDS, dropped: 0 });
      for (const [index, id] of ids) {
        const captured = await mock.outbox.get(id);
        expect(captured?.to, `message ${id} of send #${index}`).toBe(recipientOf(index));
      }

      const journal = await mock.journal.list();
      expect(journal.total).toBe(SENDS);
      expect(journal.requests.every((entry) => entry.status === 200)).toBe(true);
      expect(new Set(journal.requests.map((entry) => entry.message_id))).toEqual(new Set(ids.values()));
    },
    LOAD_TEST_TIMEOUT_MS,
  );

  it(
    "past capacity keeps capacity messages, counts the drops, and still answers every send 200",
    async () => {
      const capacity = 1_000;
      const mock = await aListeningMock(capacity);

      const run = await sendConcurrently({ url: mock.url, concurrency: CONCURRENCY, total: SENDS });
      reportThroughput("load past capacity", run);

      expect(failuresOf(run)).toEqual([]);
      expect(statusCounts(run)).toEqual({ "200": SENDS });
      const ids = new Set(respondedIds(run).values());
      expect(ids.size).toBe(SENDS);

      expect(await mock.outbox.stats()).toMatchObject({ count: capacity, capacity, dropped: SENDS - capacity });
      const kept = await mock.outbox.list();
      expect(kept.total).toBe(capacity);
      expect(kept.messages.filter((message) => !ids.has(message.id))).toEqual([]);
      // The journal has the same capacity.
      expect((await mock.journal.list()).total).toBe(capacity);
      const config = (await (await fetch(`${mock.url}/_mock/config`)).json()) as ConfigView;
      expect(config).toMatchObject({ capacity, captured_messages: capacity, dropped_messages: SENDS - capacity });
    },
    LOAD_TEST_TIMEOUT_MS,
  );
});
