// A contract violation a test sends on purpose (a typed `ada@@example`): let through when the test expected it, the test failed
// when the violation it expected never happened (a stale allowance is a bug), and every other violation judged as before.

import { closestKey } from "./domain/suggestion.js";
import type { ErrorCode, JournalEntry, Violation } from "./wire.js";

/**
 * Which violation a test expects; every field given must hold, a field left out holds for any.
 * `path` is the violation's JSON pointer (`/to`, `/data`, `/headers/content-type`); the other
 * fields pick the request: the error code and status it was answered with, its `to` and `template_id`.
 */
export interface ExpectedViolation {
  path?: string;
  errorCode?: ErrorCode;
  status?: number;
  to?: string;
  templateId?: string;
}

const FIELDS = { path: "string", errorCode: "string", status: "number", to: "string", templateId: "string" } as const;

/** `match` as given, checked: an unknown field or a value of the wrong type would allow nothing, and fail the test as stale far from the typo. */
export function checkedExpectation(match: unknown): ExpectedViolation {
  if (typeof match !== "object" || match === null || Array.isArray(match))
    throw new TypeError(
      `sendmock: expectViolation takes an object such as { path: "/to" }, not ${Array.isArray(match) ? JSON.stringify(match) : String(match)}`,
    );
  const known = Object.keys(FIELDS);
  for (const [field, value] of Object.entries(match)) {
    const type = (FIELDS as Record<string, string>)[field];
    if (type === undefined) {
      const meant = closestKey(field, known);
      throw new TypeError(
        `sendmock: expectViolation has no field ${JSON.stringify(field)}${meant === undefined ? "" : ` (did you mean ${meant}?)`}; it takes ${known.join(", ")}`,
      );
    }
    if (value !== undefined && typeof value !== type)
      throw new TypeError(`sendmock: expectViolation's ${field} must be a ${type}, not ${JSON.stringify(value)}`);
  }
  const { path } = match as ExpectedViolation;
  if (path !== undefined && path !== "" && !path.startsWith("/"))
    throw new TypeError(`sendmock: expectViolation's path is a JSON pointer such as "/to" or "/data/name", not ${JSON.stringify(path)}`);
  return { ...(match as ExpectedViolation) };
}

/** One request's violations: its schema violations, or the refusal itself for a body that is not JSON or a wrong method. */
function violationsOf(entry: JournalEntry): Violation[] {
  return entry.violations.length > 0 ? entry.violations : [{ path: "", message: entry.error_message ?? "" }];
}

function picksRequest(expected: ExpectedViolation, entry: JournalEntry): boolean {
  return (
    (expected.errorCode === undefined || entry.error_code === expected.errorCode) &&
    (expected.status === undefined || entry.status === expected.status) &&
    (expected.to === undefined || entry.to === expected.to) &&
    (expected.templateId === undefined || entry.template_id === expected.templateId)
  );
}

/**
 * `breaks` without the violations the test expected; a request whose every violation was expected
 * is left out, one with others keeps those others. `stale`: the expectations that matched nothing.
 */
export function withoutExpected(
  breaks: readonly JournalEntry[],
  expected: readonly ExpectedViolation[],
): { unexpected: JournalEntry[]; stale: ExpectedViolation[] } {
  const used = new Set<ExpectedViolation>();
  const unexpected: JournalEntry[] = [];
  for (const entry of breaks) {
    const left = violationsOf(entry).filter((violation) => {
      const allowing = expected.filter((each) => picksRequest(each, entry) && (each.path === undefined || each.path === violation.path));
      for (const each of allowing) used.add(each);
      return allowing.length === 0;
    });
    if (left.length === 0) continue;
    // A refusal of a body that is not JSON has no schema violation: it stays as it was.
    unexpected.push(entry.violations.length > 0 ? { ...entry, violations: left } : entry);
  }
  return { unexpected, stale: expected.filter((each) => !used.has(each)) };
}

/** `sendmock: expectViolation({"path":"/to"}) in this test matched no request: …` for each stale expectation. */
export function describeStale(stale: readonly ExpectedViolation[]): string {
  return stale
    .map(
      (each) =>
        `sendmock: expectViolation(${JSON.stringify(each)}) in this test matched no request's violation: the violation it allows did not happen (a stale allowance hides nothing, and is a bug: fix the request or remove it)`,
    )
    .join("\n");
}
