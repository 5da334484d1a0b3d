// The contract judgment of the test helpers (setupSendMock, setupSandbox): which of a test's requests broke openapi/send.yaml, the report, and what each mode does with it.

import type { JournalEntry } from "./wire.js";

/** What to do when a request made during a test broke the contract (openapi/send.yaml). */
export type ContractViolationMode = "error" | "warn" | "off";

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
 * Judges the requests one test made (oldest first) under `mode`: under `"error"`, the report to
 * throw from afterEach once the helper has reset (so a failing test leaves nothing behind);
 * under `"warn"` the report is printed here and nothing is returned; `"off"` judges nothing.
 */
export function judgeContract(requests: readonly JournalEntry[], mode: ContractViolationMode): string | undefined {
  if (mode === "off") return undefined;
  const breaks = contractBreaks(requests);
  if (breaks.length === 0) return undefined;
  const report = describeContractBreaks(breaks);
  if (mode === "error") return report;
  console.warn(report);
  return undefined;
}
