// What a contract check (contract/operation-checks.ts) refused in a request or an answer, for the
// error handler to word.

/** One way a request or an answer breaks the contract. */
export interface ContractIssue {
  /** A JSON pointer from the exchange's root: `/body/cc/1`, `/query/page`, `/response/message_id`. */
  path: string;
  /** The JSON Schema keyword that failed (`format`, `required`), or "" for a check of the exchange itself. */
  keyword: string;
  /** ajv's words (`must match format "email"`), or the check's own. */
  message: string;
  /** For an unknown key (`additionalProperties`): the keys its object takes, to suggest the one meant. */
  known?: readonly string[];
}

export type RefusalKind = "bad_request" | "unsupported_media_type" | "broken_answer";

/** Turned into an ApiError by the error handler, which words it for the client. */
export class ContractRefusal extends Error {
  override name = "ContractRefusal";

  constructor(
    readonly kind: RefusalKind,
    message: string,
    readonly issues: readonly ContractIssue[] = [],
  ) {
    super(message);
  }
}
