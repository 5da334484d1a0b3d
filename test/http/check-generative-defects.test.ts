// `sendmock check --generate` against a send API broken in one way: exactly that check fails,
// with its smallest failing request and a curl line. Apart from check-generative.test.ts so the
// two run on two workers: together they were the longest file of the http tier (10-12 s). Its cases
// run side by side, each against an API of its own: 5.3 s one after another in CI, much of it waiting on the slow one.

import { describe, expect, it } from "vitest";
import type { Defect } from "../support/broken-send-api.js";
import { brokenApisClosedAfterAll, checkAgainst as check, failedChecks, named, SLOW_MACHINE } from "../support/check-runs.js";

const api = brokenApisClosedAfterAll();

describe.concurrent("sendmock check --generate against a send API broken in one way", SLOW_MACHINE, () => {
  const cases: [Defect, string, { allowSend?: boolean; maxResponseMs?: number; maxRetries?: number }][] = [
    ["server error on non-ASCII data", "not_a_server_error", {}],
    ["accepts a number as to", "negative_data_rejection", {}],
    ["ignores auth", "missing_required_header", {}],
    ["405 without Allow", "unsupported_method", {}],
    ["errors as text/plain", "content_type_conformance", {}],
    // Its 429s are inconclusive about the requests, but their form is judged; not retried, as the limit lasts a day.
    ["429 without Retry-After", "response_headers_conformance", { maxRetries: 0 }],
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
