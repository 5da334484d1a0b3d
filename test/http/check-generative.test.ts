// `sendmock check --generate` in this process: the named checks pass against sendmock in both
// shapes, and against a send API broken in one way exactly that check fails, shrunk and replayable.

import { afterEach, describe, expect, it } from "vitest";
import { runCheck, type CheckResult } from "../../src/index.js";
import { CHECK_NAMES } from "../../src/check/named-checks.js";
import { brokenSendApi, type BrokenSendApi, type Defect } from "../support/broken-send-api.js";

const apis: BrokenSendApi[] = [];

afterEach(async () => {
  await Promise.all(apis.splice(0).map((api) => api.close()));
});

async function api(defect: Defect | null, shape: "a" | "b" = "a"): Promise<BrokenSendApi> {
  const started = await brokenSendApi(defect, { responseShape: shape });
  apis.push(started);
  return started;
}

const named = (results: CheckResult[]): CheckResult[] => results.filter((result) => (CHECK_NAMES as readonly string[]).includes(result.id));
const failedChecks = (results: CheckResult[]): string[] =>
  named(results)
    .filter((result) => result.outcome === "failed")
    .map((result) => result.id);

function check(
  target: BrokenSendApi,
  options: { seed?: number; allowSend?: boolean; maxResponseMs?: number; generate?: number; shrinkTimeLimitMs?: number } = {},
) {
  return runCheck({
    baseUrl: target.url,
    apiKey: "check-key-1234",
    generate: options.generate ?? 30,
    seed: options.seed ?? 1,
    maxResponseMs: options.maxResponseMs,
    shrinkTimeLimitMs: options.shrinkTimeLimitMs,
    allowSend: options.allowSend,
    recipient: options.allowSend === true ? "qa@example.com" : undefined,
  });
}

// Each test sends a hundred or more requests through a relay; a loaded machine can slow that down a lot.
const SLOW_MACHINE = { timeout: 60_000 };

describe("sendmock check --generate against sendmock", SLOW_MACHINE, () => {
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

describe("sendmock check --generate against a send API broken in one way", SLOW_MACHINE, () => {
  const cases: [Defect, string, { allowSend?: boolean; maxResponseMs?: number }][] = [
    ["server error on non-ASCII data", "not_a_server_error", {}],
    ["accepts a number as to", "negative_data_rejection", {}],
    ["ignores auth", "missing_required_header", {}],
    ["405 without Allow", "unsupported_method", {}],
    ["errors as text/plain", "content_type_conformance", {}],
    ["429 without Retry-After", "response_headers_conformance", {}],
    ["an extra field in a 200", "response_schema_conformance", { allowSend: true }],
    ["slow", "max_response_time", { maxResponseMs: 25 }],
  ];
  for (const [defect, expected, options] of cases) {
    it(`${defect}: fails ${expected} and no other check, with the smallest failing request and a curl line`, async () => {
      const target = await api(defect);
      const results = await check(target, { ...options, generate: defect === "slow" ? 10 : 30 });
      expect(failedChecks(results), JSON.stringify(named(results), null, 1)).toEqual([expected]);
      const failure = named(results).find((result) => result.id === expected);
      expect(failure?.reproduction?.curl).toMatch(/^curl -sS -i -X [A-Z]+ 'http:\/\/127\.0\.0\.1:\d+\/send'/);
    });
  }
});

describe("sendmock check --generate is seeded", SLOW_MACHINE, () => {
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
