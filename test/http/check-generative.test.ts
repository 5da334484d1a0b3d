// `sendmock check --generate` in this process: the named checks pass against sendmock in both
// shapes, and a failing run replays with its seed. Against a send API broken in one way:
// check-generative-defects.test.ts. The tests run side by side, each against an API of its own,
// all closed when the file ends.

import { describe, expect, it } from "vitest";
import { CHECK_NAMES } from "../../src/contract/named-checks.js";
import { brokenApisClosedAfterAll, checkAgainst as check, failedChecks, named, SLOW_MACHINE } from "../support/check-runs.js";

const api = brokenApisClosedAfterAll();

describe.concurrent("sendmock check --generate against sendmock", SLOW_MACHINE, () => {
  for (const shape of ["a", "b"] as const) {
    it(`passes every named check in shape ${shape} and, without --allow-send, captures nothing`, async () => {
      const target = await api(null, shape);
      const results = await check(target, { generate: 40, seed: 7 });
      expect(failedChecks(results), JSON.stringify(named(results), null, 1)).toEqual([]);
      expect(named(results).map((result) => `${result.id} ${result.outcome}`)).toEqual(
        CHECK_NAMES.map((name) => `${name} ${name === "max_response_time" || name === "positive_data_acceptance" ? "skipped" : "passed"}`),
      );
      expect((await target.mock.outbox.list()).total).toBe(0);
    });

    it(`with --allow-send in shape ${shape}, sends valid requests to --recipient only, and they are accepted`, async () => {
      const target = await api(null, shape);
      const results = await check(target, { allowSend: true, generate: 40, seed: 11 });
      expect(failedChecks(results), JSON.stringify(named(results), null, 1)).toEqual([]);
      expect(named(results).find((result) => result.id === "positive_data_acceptance")?.outcome).toBe("passed");
      const { messages } = await target.mock.outbox.list({ limit: 1000 });
      expect(messages.length).toBeGreaterThan(2);
      const addresses = messages.flatMap((message) => [message.to, ...message.cc, ...message.bcc, message.reply_to ?? "qa@example.com"]);
      expect(new Set(addresses)).toEqual(new Set(["qa@example.com"]));
    });
  }
});

describe.concurrent("sendmock check --generate is seeded", SLOW_MACHINE, () => {
  it("replays a failing run with its seed: the same failures and the same smallest request", async () => {
    const target = await api("server error on non-ASCII data");
    const runs = [await check(target, { seed: 424242 }), await check(target, { seed: 424242 })];
    const failures = runs.map((results) => named(results).filter((result) => result.outcome === "failed"));
    expect(failures[0]?.map((result) => result.id)).toEqual(["not_a_server_error"]);
    expect(failures[1]).toEqual(failures[0]?.map((result) => ({ ...result, durationMs: failures[1]?.[0]?.durationMs })));
    // Shrunk: a data value that is not ASCII is all it takes, the rest is as small as fast-check could make it.
    expect(failures[0]?.[0]?.reproduction?.request).toMatch(/"data":\{[^}]*\P{ASCII}/u);
  });

  it("with a shrink time of 0 keeps the first failing request as it was drawn", async () => {
    const target = await api("server error on non-ASCII data");
    const reproductionOf = async (shrinkTimeLimitMs?: number) =>
      named(await check(target, { seed: 424242, shrinkTimeLimitMs })).find((result) => result.outcome === "failed")?.reproduction?.request ?? "";
    const [drawn, shrunk] = [await reproductionOf(0), await reproductionOf()];
    expect(drawn.length).toBeGreaterThan(shrunk.length);
  });
});
