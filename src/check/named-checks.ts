// How `sendmock check --generate` judges one generated request and its response by the named checks
// (contract/named-checks.ts names them), the response itself judged by the contract checker proxy uses.

import type { ContractChecker } from "../contract/check.js";
import { isClientError, negativeDataRejection, notAServerError, type CheckName } from "../contract/named-checks.js";
import type { ExplainedViolation } from "../errors.js";
import type { GeneratedRequest } from "./generate.js";
import type { HttpResponse } from "../response.js";

/**
 * The checks that judge a response's form alone (status, media type, headers, body). They judge
 * even an inconclusive response (a 429 after every retry, a 401 to the given key): it says nothing
 * of the request, yet it can break the contract itself.
 */
export const RESPONSE_CHECKS: ReadonlySet<CheckName> = new Set([
  "status_code_conformance",
  "content_type_conformance",
  "response_headers_conformance",
  "response_schema_conformance",
]);

export interface Exchange {
  request: GeneratedRequest;
  /** Absent when no whole response came (`failure` says why). */
  response?: HttpResponse;
  failure?: string;
  /** Without a whole response: whether the target answered (with `status`, when its status line came), then broke. */
  answered?: boolean;
  status?: number;
  /** Why the response says nothing of the request (rate limited, the key refused): only ANSWER_CHECKS judge it. */
  inconclusive?: string;
  durationMs: number;
}

export type Verdicts = Partial<Record<CheckName, ExplainedViolation>>;

/** The problem of a target that answered, then broke (closed mid-body, too many headers, a body over --max-body-bytes): not one that never answered. */
export const BROKE_OFF = "the answer broke off";

/** Which of the contract checker's findings belongs to which check: by what it points at (`/status`, `/headers/…`, `/body…`). */
function checkOfViolation(violation: ExplainedViolation): CheckName {
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
  const { request, response } = exchange;
  if (exchange.inconclusive !== undefined) {
    for (const violation of response === undefined ? [] : contract.checkResponse(response)) verdicts[checkOfViolation(violation)] ??= violation;
    return verdicts;
  }
  if (maxResponseMs !== undefined && exchange.durationMs > maxResponseMs) {
    verdicts.max_response_time = {
      path: "/time",
      message: `answered in ${exchange.durationMs} ms, more than --max-response-ms ${maxResponseMs}`,
      expected: `at most ${maxResponseMs} ms`,
      actual: `${exchange.durationMs} ms`,
    };
  }
  if (response === undefined) {
    const reason = exchange.failure ?? "no answer";
    verdicts.not_a_server_error =
      exchange.answered === true
        ? { path: "", message: BROKE_OFF, expected: "a whole answer", actual: reason }
        : { path: "", message: `no answer: ${reason}`, expected: "an answer", actual: reason };
    return verdicts;
  }
  const status = response.status;
  const actual = String(status);
  const serverError = notAServerError(status);
  const accepted = NEGATIVE_KINDS.has(request.kind) ? negativeDataRejection(status, request.defect) : undefined;
  if (serverError !== undefined) {
    verdicts.not_a_server_error = serverError;
  } else if (accepted !== undefined) {
    verdicts.negative_data_rejection = accepted;
  } else if (
    (request.kind === "missing_auth" || request.kind === "malformed_auth") &&
    !(contract.documentsStatus(401) ? status === 401 : isClientError(status))
  ) {
    verdicts.missing_required_header = {
      path: "/status",
      message: `a request with ${request.defect} was not refused${contract.documentsStatus(401) ? " as unauthorized" : ""}`,
      expected: contract.documentsStatus(401) ? "401" : "4xx",
      actual,
    };
  } else if (request.kind === "other_method") {
    // A 405 names what is allowed (RFC 9110 §15.5.6), whatever the contract; only a contract that lists 405 asks for one.
    const allow = response.headers.allow;
    if (status === 405 && !/\bPOST\b/i.test(allow ?? "")) {
      verdicts.unsupported_method = {
        path: "/headers/allow",
        message: "405 without an Allow header naming POST",
        expected: "Allow: POST",
        actual: allow === undefined ? "absent" : `Allow: ${allow}`,
      };
    } else if (contract.documentsStatus(405) ? status !== 405 : !isClientError(status)) {
      const expected = contract.documentsStatus(405) ? "405" : "4xx";
      verdicts.unsupported_method = { path: "/status", message: `${request.method} /send was not refused as a method it does not allow`, expected, actual };
    }
  } else if (request.kind === "positive" && (status < 200 || status > 299)) {
    verdicts.positive_data_acceptance = { path: "/status", message: "a request the contract accepts was refused", expected: "2xx", actual };
  }
  for (const violation of contract.checkResponse(response)) verdicts[checkOfViolation(violation)] ??= violation;
  return verdicts;
}
