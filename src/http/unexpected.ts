// Errors nobody expected (a bug, not a client's mistake): logged once with their stack and cause, responded as a 500 in the configured shape.

import { inspect } from "node:util";
import { ApiError } from "../errors.js";
import { toApiError } from "./validation-errors.js";

/** The line a bug leaves on the log: the error with its stack and any `cause`, as Node prints it. */
export function describeUnexpected(error: unknown): string {
  return `sendmock: unexpected error (a bug in sendmock; please report it): ${inspect(error, { depth: 4 })}`;
}

/**
 * `toApiError`, telling `report` of each error that is not a refusal of the request: one that
 * becomes a server_error without being an ApiError itself (a store that is down is a 503 the
 * client can retry, and says so; it is no bug).
 */
export function createErrorTranslator(report: (error: unknown) => void): (error: unknown, body: unknown) => ApiError {
  return (error, body) => {
    const apiError = toApiError(error, body);
    if (apiError.code === "server_error" && apiError.fixedStatus === undefined && !(error instanceof ApiError)) report(error);
    return apiError;
  };
}
