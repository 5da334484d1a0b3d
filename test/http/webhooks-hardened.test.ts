// Where issue 28 found the engine weak, first the clock: a long advance lets other requests through.

import { describe, expect, it } from "vitest";
import { aRunningMockForThisTest, aSendRequest, bearer } from "../support/helpers.js";

/** Lifecycle steps a minute apart: only the tests' own advances move messages on. */
const STEP_MS = 60_000;

describe("a large advance", () => {
  const MESSAGES = 2000;

  it("lets other requests through while it runs, each in well under 100 ms", async () => {
    const mock = await aRunningMockForThisTest({ lifecycle: { stepMs: STEP_MS } });
    const body = (index: number): string => JSON.stringify(aSendRequest({ to: `clicked+${index}@outcome.sendmock.test` }));
    const headers = { ...bearer(), "Content-Type": "application/json" };
    // 4 events each: 8,000 steps, which ran in one go and held every other request until they were done.
    for (let sent = 0; sent < MESSAGES; sent += 100) {
      await Promise.all(Array.from({ length: 100 }, (_, index) => fetch(`${mock.url}/send`, { method: "POST", headers, body: body(sent + index) })));
    }
    await fetch(`${mock.url}/_mock/health`);

    let advanced = false;
    const advancing = mock.clock.advance(4 * STEP_MS).then(() => (advanced = true));
    const isAdvancing = (): boolean => !advanced;
    const waits: number[] = [];
    let answeredDuringAdvance = 0;
    while (isAdvancing()) {
      const started = performance.now();
      const answer = await fetch(`${mock.url}/_mock/health`);
      expect(answer.status).toBe(200);
      waits.push(performance.now() - started);
      if (isAdvancing()) answeredDuringAdvance += 1;
    }
    await advancing;

    expect((await mock.outbox.list({ status: "clicked" })).total).toBe(MESSAGES);
    expect(answeredDuringAdvance).toBeGreaterThan(1);
    // The median, not the longest: on a busy machine one wait may take a descheduled moment more.
    const median = waits.toSorted((a, b) => a - b)[Math.floor(waits.length / 2)] ?? Number.POSITIVE_INFINITY;
    expect(median).toBeLessThan(100);
  });
});
