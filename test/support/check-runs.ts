// `sendmock check --generate` run in this process against a send API (sendmock itself, or one
// broken in one way), for the check-generative test files.

import { afterAll } from "vitest";
import { runCheck, type CheckResult } from "../../src/index.js";
import { CHECK_NAMES } from "../../src/contract/named-checks.js";
import { brokenSendApi, type BrokenSendApi, type Defect } from "./broken-send-api.js";

/** Each test sends a hundred or more requests through a relay; a loaded machine can slow that down a lot. */
export const SLOW_MACHINE = { timeout: 60_000 };

/** Starts send APIs for the tests of the calling file, whose tests run side by side: all closed when the file ends. Call it at the top of the file. */
export function brokenApisClosedAfterAll(): (defect: Defect | null, shape?: "a" | "b") => Promise<BrokenSendApi> {
  const apis: BrokenSendApi[] = [];
  afterAll(async () => {
    await Promise.all(apis.splice(0).map((api) => api.close()));
  });
  return async (defect, shape = "a") => {
    const started = await brokenSendApi(defect, { responseShape: shape });
    apis.push(started);
    return started;
  };
}

/** The results of the named checks, without the per-case results. */
export const named = (results: CheckResult[]): CheckResult[] => results.filter((result) => (CHECK_NAMES as readonly string[]).includes(result.id));

export const failedChecks = (results: CheckResult[]): string[] =>
  named(results)
    .filter((result) => result.outcome === "failed")
    .map((result) => result.id);

/**
 * `sendmock check` against a sendmock broken in one way, judged by sendmock's own contract: the
 * defects are departures from openapi/send.yaml (the published contract is tried against a
 * stand-in for the real service in check-published.test.ts).
 */
export async function checkAgainst(
  target: { url: string },
  options: {
    seed?: number;
    allowSend?: boolean;
    maxResponseMs?: number;
    generate?: number;
    shrinkTimeLimitMs?: number;
    contract?: string;
    maxRetries?: number;
  } = {},
): Promise<CheckResult[]> {
  const report = await runCheck({
    baseUrl: target.url,
    apiKey: "check-key-1234",
    contract: options.contract ?? "sendmock",
    maxRetries: options.maxRetries,
    generate: options.generate ?? 30,
    seed: options.seed ?? 1,
    maxResponseMs: options.maxResponseMs,
    shrinkTimeLimitMs: options.shrinkTimeLimitMs,
    allowSend: options.allowSend,
    recipient: options.allowSend === true ? "qa@example.com" : undefined,
  });
  return report.results;
}
