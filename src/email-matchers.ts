// `expect(email).toPassEmailChecks({ allow })`: the test helpers' matcher over a message's named checks (docs/message-checks.md).

import { checkMessage } from "./message-checks/index.js";
import type { MessageCheckName, MessageCheck } from "./message-checks/index.js";

export interface EmailChecksExpectation {
  /** Checks whose `fail` the test accepts (`["html_support"]`); every other check must not fail. */
  allow?: readonly MessageCheckName[];
}

/** What a matcher returns to vitest's and jest's `expect.extend`. */
export interface MatcherResult {
  pass: boolean;
  message: () => string;
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

/** The checks of what the test gave: the result of `email.checks()` as it is, or a captured message checked here (every check but spam). */
function checksOf(received: unknown): MessageCheck[] {
  if (isMapping(received) && Array.isArray(received.checks)) return received.checks as MessageCheck[];
  if (isMapping(received) && typeof received.subject === "string") {
    const part = (value: unknown): string | null => (typeof value === "string" ? value : null);
    return checkMessage({ subject: received.subject, html: part(received.html), text: part(received.text) }).checks;
  }
  throw new TypeError("toPassEmailChecks: expected a captured message (from outbox.waitFor, list or get) or what email.checks() resolved with");
}

function describeFailure(check: MessageCheck): string {
  const findings = check.findings
    .filter((finding) => finding.severity === "fail")
    .slice(0, 5)
    .map(
      (finding) =>
        `    ${finding.part === undefined ? "" : `${finding.part}${finding.line === undefined ? "" : `:${String(finding.line)}`} `}${finding.message}`,
    );
  return [`  ${check.name}: ${check.summary}`, ...findings].join("\n");
}

/** Passes when no check fails but those `allow` names; `.not` passes when one does. */
export function toPassEmailChecks(received: unknown, expectation: EmailChecksExpectation = {}): MatcherResult {
  const allowed = new Set<string>(expectation.allow ?? []);
  const checks = checksOf(received);
  const failed = checks.filter((check) => check.status === "fail" && !allowed.has(check.name));
  const shownAllowed = allowed.size === 0 ? "" : ` (allowed to fail: ${[...allowed].join(", ")})`;
  return {
    pass: failed.length === 0,
    message: () =>
      failed.length === 0
        ? `expected the email to fail a check${shownAllowed}, but every check passed or only warned`
        : `expected the email to pass its checks${shownAllowed}, but ${String(failed.length)} failed:\n${failed.map(describeFailure).join("\n")}`,
  };
}
