// What a contract check (contract/operation-checks.ts) refused in a request or a response, for the
// error handler to word.

import type { Violation } from "../errors.js";

export type RefusalKind = "bad_request" | "unsupported_media_type" | "broken_response";

/** Turned into an ApiError by the error handler, which words it for the client. */
export class ContractRefusal extends Error {
  override name = "ContractRefusal";

  constructor(
    readonly kind: RefusalKind,
    message: string,
    /** Pointers from the exchange's root: `/body/cc/1`, `/query/page`, `/response/message_id`. */
    readonly issues: readonly Violation[] = [],
    /** Issues past those listed, counted but not checked one by one: the unknown keys of a huge body (see operation-checks.ts). */
    readonly unlisted = 0,
  ) {
    // A refused request is the client's mistake, with no stack to read: capturing one was 5% of
    // the 422 path's CPU in a profile of the bench. A broken response is sendmock's bug, and keeps it.
    const stackTraceLimit = Error.stackTraceLimit;
    if (kind !== "broken_response") Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = stackTraceLimit;
  }
}
