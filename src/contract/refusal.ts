// What a contract check (contract/operation-checks.ts) refused in a request or an answer, for the
// error handler to word.

import type { Violation } from "../errors.js";

export type RefusalKind = "bad_request" | "unsupported_media_type" | "broken_answer";

/** Turned into an ApiError by the error handler, which words it for the client. */
export class ContractRefusal extends Error {
  override name = "ContractRefusal";

  constructor(
    readonly kind: RefusalKind,
    message: string,
    /** Pointers from the exchange's root: `/body/cc/1`, `/query/page`, `/response/message_id`. */
    readonly issues: readonly Violation[] = [],
  ) {
    super(message);
  }
}
