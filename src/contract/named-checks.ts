// The named checks of `check` and `proxy` (Schemathesis' names), and the verdicts one status gives
// whoever judges it: `check` of the requests it generates, `proxy` of each exchange it relays.

import type { ExplainedViolation } from "../errors.js";

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
  missing_required_header: "401 (any 4xx where the contract lists no 401)",
  unsupported_method: "405 with Allow: POST (any 4xx where the contract lists no 405)",
  max_response_time: "a quick answer",
  positive_data_acceptance: "2xx",
};

/** A 4xx. */
export const isClientError = (status: number): boolean => status >= 400 && status <= 499;

/** `not_a_server_error`: a 5xx, whatever was asked; `check` judges every response by it, `proxy` every relayed one. */
export function notAServerError(status: number): ExplainedViolation | undefined {
  return status >= 500 ? { path: "/status", message: "a server error", expected: "no 5xx", actual: String(status) } : undefined;
}

/**
 * `negative_data_rejection`: a request the contract forbids (`defect` says how) answered other than
 * 4xx; a 5xx is `not_a_server_error`'s alone. `check` sends such requests on purpose, `proxy` meets them.
 */
export function negativeDataRejection(status: number, defect: string): ExplainedViolation | undefined {
  if (status >= 500 || isClientError(status)) return undefined;
  return { path: "/status", message: `a request the contract forbids (${defect}) was not refused`, expected: "4xx", actual: String(status) };
}
