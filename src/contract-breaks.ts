// The contract judgment of the test helpers (setupSendMock, setupSandbox): which of a test's requests broke openapi/send.yaml, the report, and what each mode does with it.

import { describeStale, withoutExpected, type ExpectedViolation } from "./expected-violations.js";
import type { JournalEntry } from "./wire.js";

/** What to do when a request made during a test broke the contract (openapi/send.yaml). */
export type ContractViolationMode = "error" | "warn" | "off";

/** A mode for every request, or one per request: a function of its journal entry, as MSW's `onUnhandledRequest(request)`. */
export type ContractViolationJudge = ContractViolationMode | ((request: JournalEntry) => ContractViolationMode);

/** The requests of `requests` that broke the contract: refused for their shape, headers, JSON or method. */
export function contractBreaks(requests: readonly JournalEntry[]): JournalEntry[] {
  return requests.filter((entry) => entry.violations.length > 0 || entry.error_code === "invalid_json" || entry.error_code === "method_not_allowed");
}

/**
 * `sendmock: 1 request in this test broke the contract (openapi/send.yaml):`
 * `  POST /send -> 400 invalid_request`
 * `    /to: to must be a string`
 */
export function describeContractBreaks(breaks: readonly JournalEntry[]): string {
  const count = `${breaks.length} request${breaks.length === 1 ? "" : "s"}`;
  const lines = [`sendmock: ${count} in this test broke the contract (openapi/send.yaml):`];
  for (const entry of breaks) {
    lines.push(`  ${entry.method} ${entry.path} -> ${entry.status} ${entry.error_code ?? "(no error code)"}`);
    const violations = entry.violations.length > 0 ? entry.violations : [{ path: "", message: entry.error_message ?? "" }];
    for (const violation of violations) lines.push(`    ${violation.path || "/"}: ${violation.message}`);
  }
  return lines.join("\n");
}

/**
 * Judges the requests one test made (oldest first) under `mode`, the violations the test expected
 * (`expectViolation`) let through: the failure to throw from afterEach once the helper has reset
 * (so a failing test leaves nothing behind): the report of the requests judged `"error"`, and every
 * expectation that matched nothing, whatever the mode. The requests judged `"warn"` are printed here.
 */
export function judgeContract(
  requests: readonly JournalEntry[],
  mode: ContractViolationJudge,
  expected: readonly ExpectedViolation[] = [],
): string | undefined {
  const { unexpected, stale } = withoutExpected(contractBreaks(requests), expected);
  const modeOf = (entry: JournalEntry): ContractViolationMode => {
    if (typeof mode !== "function") return mode;
    const chosen: unknown = mode(entry);
    if (chosen === "error" || chosen === "warn" || chosen === "off") return chosen;
    throw new TypeError(
      `sendmock: onContractViolation returned ${typeof chosen === "string" ? JSON.stringify(chosen) : String(chosen)} for ${entry.method} ${entry.path} -> ${String(entry.status)}: return "error", "warn" or "off"`,
    );
  };
  const judged = unexpected.map((entry) => ({ entry, mode: modeOf(entry) }));
  const warned = judged.filter((each) => each.mode === "warn").map((each) => each.entry);
  if (warned.length > 0) console.warn(describeContractBreaks(warned));
  const failed = judged.filter((each) => each.mode === "error").map((each) => each.entry);
  const failures = [...(failed.length > 0 ? [describeContractBreaks(failed)] : []), ...(stale.length > 0 ? [describeStale(stale)] : [])];
  return failures.length > 0 ? failures.join("\n") : undefined;
}
