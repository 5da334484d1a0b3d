// The named checks of `sendmock check --generate` (Schemathesis' names): what each judges of one
// generated request and its answer, the answer itself judged by the contract checker proxy uses.

import type { ContractChecker } from "../contract/check.js";
import type { ContractViolation } from "../contract/violations.js";
import type { GeneratedRequest } from "./generate.js";

export const CHECK_NAMES = [
  "not_a_server_error",
  "status_code_conformance",
  "content_type_conformance",
  "response_headers_conformance",
  "response_schema_conformance",
  "negative_data_rejection",
  "missing_required_header",
  "unsupported_method",
  "max_response_time",
  "positive_data_acceptance",
] as const;

export type CheckName = (typeof CHECK_NAMES)[number];

/** What each check expects, as shown next to a failure. */
export const EXPECTED: Record<CheckName, string> = {
  not_a_server_error: "no 5xx",
  status_code_conformance: "a status of the contract",
  content_type_conformance: "a media type of the contract",
  response_headers_conformance: "headers per contract",
  response_schema_conformance: "a body per contract",
  negative_data_rejection: "4xx",
  missing_required_header: "401",
  unsupported_method: "405 with Allow: POST",
  max_response_time: "a quick answer",
  positive_data_acceptance: "2xx",
};

export interface Exchange {
  request: GeneratedRequest;
  /** Absent when no answer came; `failure` says why. */
  answer?: { status: number; headers: Record<string, string>; body: string };
  failure?: string;
  durationMs: number;
}

export type Verdicts = Partial<Record<CheckName, ContractViolation>>;

/** Which of the contract checker's findings belongs to which check: by what it points at. */
function checkOfViolation(violation: ContractViolation): CheckName {
  if (violation.path === "/status") return "status_code_conformance";
  if (violation.path === "/headers/content-type") return "content_type_conformance";
  if (violation.path.startsWith("/headers/")) return "response_headers_conformance";
  return "response_schema_conformance";
}

const NEGATIVE_KINDS = new Set(["negative_body", "wrong_content_type", "malformed_json"]);

/**
 * The checks an exchange fails, each with its first problem. A 5xx is `not_a_server_error`'s
 * alone (as in Schemathesis): the checks that expect a status leave it, so one defect is named once.
 */
export function judge(contract: ContractChecker, exchange: Exchange, maxResponseMs: number | undefined): Verdicts {
  const verdicts: Verdicts = {};
  const { request, answer } = exchange;
  if (maxResponseMs !== undefined && exchange.durationMs > maxResponseMs) {
    verdicts.max_response_time = {
      path: "/time",
      message: `answered in ${exchange.durationMs} ms, more than --max-response-ms ${maxResponseMs}`,
      expected: `at most ${maxResponseMs} ms`,
      actual: `${exchange.durationMs} ms`,
    };
  }
  if (answer === undefined) {
    const reason = exchange.failure ?? "no answer";
    verdicts.not_a_server_error = { path: "", message: `no answer: ${reason}`, expected: "an answer", actual: reason };
    return verdicts;
  }
  const status = answer.status;
  const actual = String(status);
  if (status >= 500) {
    verdicts.not_a_server_error = { path: "/status", message: "a server error", expected: "no 5xx", actual };
  } else if (NEGATIVE_KINDS.has(request.kind) && (status < 400 || status > 499)) {
    verdicts.negative_data_rejection = {
      path: "/status",
      message: `a request the contract forbids (${request.defect}) was not refused`,
      expected: "4xx",
      actual,
    };
  } else if ((request.kind === "missing_auth" || request.kind === "malformed_auth") && status !== 401) {
    verdicts.missing_required_header = {
      path: "/status",
      message: `a request with ${request.defect} was not refused as unauthorized`,
      expected: "401",
      actual,
    };
  } else if (request.kind === "other_method" && (status !== 405 || !/\bPOST\b/i.test(answer.headers.allow ?? ""))) {
    const allow = answer.headers.allow;
    verdicts.unsupported_method =
      status === 405
        ? {
            path: "/headers/allow",
            message: "405 without an Allow header naming POST",
            expected: "Allow: POST",
            actual: allow === undefined ? "absent" : `Allow: ${allow}`,
          }
        : { path: "/status", message: `${request.method} /send was not refused as a method it does not allow`, expected: "405", actual };
  } else if (request.kind === "positive" && (status < 200 || status > 299)) {
    verdicts.positive_data_acceptance = { path: "/status", message: "a request the contract accepts was refused", expected: "2xx", actual };
  }
  for (const violation of contract.checkAnswer({ status, headers: answer.headers, body: answer.body })) {
    const check = checkOfViolation(violation);
    verdicts[check] ??= violation;
  }
  return verdicts;
}
