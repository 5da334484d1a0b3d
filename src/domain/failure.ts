// How the domain says that what it was asked cannot be done: a code and words, never an HTTP
// status; the edge (http/, send/, the library's handle) turns it into the ApiError it responds with.

/** What kind of refusal it is: the API's error code it stands for, no more. */
export type FailureCode = "invalid_request" | "not_found" | "invalid_template_id" | "missing_template_data" | "unknown_template_data";

/** One part of the input at fault: `path` a JSON pointer into what was sent (`/headers/x-sendmock-fault`). */
export interface FailureDetail {
  path: string;
  message: string;
}

/** A refusal of what a caller asked: a mistake of theirs, not a fault in sendmock. */
export class DomainFailure extends Error {
  readonly code: FailureCode;
  readonly details: readonly FailureDetail[];

  constructor(code: FailureCode, message: string, details: readonly FailureDetail[] = []) {
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
