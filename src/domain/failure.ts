// How the domain says that what it was asked cannot be done: a code and words, never an HTTP
// status; the edge (http/, send/, the library's handle) turns it into the ApiError it responds with.

import type { Violation } from "./violation.js";

/** What kind of refusal it is: the API's error code it stands for, no more. */
export type FailureCode = "invalid_request" | "not_found" | "invalid_template_id" | "missing_template_data" | "unknown_template_data";

/** A refusal of what a caller asked: a mistake of theirs, not a fault in sendmock. */
export class DomainFailure extends Error {
  readonly code: FailureCode;
  readonly details: readonly Violation[];

  constructor(code: FailureCode, message: string, details: readonly Violation[] = []) {
    // No stack to read, as for the ApiError the edge makes of it: a bad template id is a client's
    // mistake on /send's error path, where capturing a stack was a sixth of the time in the bench.
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = stackTraceLimit;
    this.name = "DomainFailure";
    this.code = code;
    this.details = details;
  }
}
