// The formatter of `check`, `proxy`, the `respond` fault and sendmock's own self-checks: each
// violation the translator found says what the contract expected there and what was found.

import { valueAt } from "../domain/json.js";
import type { ExplainedViolation, Violation } from "../domain/violation.js";

/** A value as a violation quotes it: JSON, cut at 60 characters; `absent` for none. */
export function show(value: unknown): string {
  if (value === undefined) return "absent";
  const json = JSON.stringify(value);
  return json.length > 60 ? `${json.slice(0, 57)}...` : json;
}

const COMPARISONS: Readonly<Record<string, string>> = { minimum: ">=", maximum: "<=", exclusiveMinimum: ">", exclusiveMaximum: "<" };

/** What a keyword asked, as ajv's params spell it (`{"format":"email"}`, `{"comparison":">=","limit":1}`). */
function asked(violation: Violation): Record<string, unknown> {
  const { keyword = "", limit, format, pattern } = violation;
  if (format !== undefined) return { format };
  if (pattern !== undefined) return { pattern };
  if (limit === undefined) return {};
  if (keyword === "multipleOf") return { multipleOf: limit };
  const comparison = COMPARISONS[keyword];
  return comparison === undefined ? { limit } : { comparison, limit };
}

/** The name a missing or unknown key's violation ends in: the last token of its pointer. */
const lastKey = (path: string): string => path.slice(path.lastIndexOf("/") + 1);

/** `violation` of `value` (which sits at `root` in the exchange) as `check` and `proxy` report it: its pointer, keyword and words, the rest told in `expected`. */
export function explained(violation: Violation, value: unknown, root: string): ExplainedViolation {
  const { path, keyword = "", message } = violation;
  const actual = show(valueAt(value, path.slice(root.length)));
  const facts = { path, keyword, message };
  switch (keyword) {
    case "required":
      return { ...facts, message: `${lastKey(path)} is required`, expected: `a ${lastKey(path)}`, actual: "absent" };
    case "additionalProperties":
      return { ...facts, message: `${lastKey(path)} is not in the contract`, expected: "no such property", actual };
    case "const":
      return { ...facts, expected: show(violation.allowed?.[0]), actual };
    case "enum":
      return { ...facts, expected: `one of ${show(violation.allowed)}`, actual };
    case "type":
    case "oneOf":
    case "anyOf":
      return { ...facts, expected: violation.types?.join(",") ?? `${keyword} {}`, actual };
    default:
      return { ...facts, expected: `${keyword} ${show(asked(violation))}`, actual };
  }
}

/** Violations as one line: `/data/status must be equal to one of the allowed values; / to is required`. */
export const inOneLine = (violations: readonly Violation[]): string =>
  violations.map((violation) => `${violation.path || "/"} ${violation.message}`).join("; ");
