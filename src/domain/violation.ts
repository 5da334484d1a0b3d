// The one type for "this part of a value breaks what it must be": the facts, found once (from
// ajv's errors by contract/violations.ts, or by a check of the exchange itself), and the words of
// whoever tells them; each audience's formatter words the facts its own way.

/**
 * One way a request, a response or a value breaks a contract or a schema, whoever found it. Only
 * `path` and `message` go on the wire; the facts beside them are what the formatters word (the send
 * API's refusal, a config error, `check` and `proxy`'s report).
 */
export interface Violation {
  /** A JSON pointer: into the request body (`/cc/1`), the exchange (`/query/page`, `/response/message_id`), or `/status`, `/headers/<name>`; a missing or unknown key's own pointer. */
  path: string;
  /** The words: the contract's own (`must match format "email"`) until a formatter words it for its audience. */
  message: string;
  /** The JSON Schema keyword that failed (`format`, `required`), absent for a check of the exchange itself. */
  keyword?: string;
  /** The names allowed where it failed: the keys of the object for an unknown key, the values of an enum, to suggest the one meant. */
  known?: readonly string[];
  /** The values the schema allows there (an `enum`'s, a `const`'s one). */
  allowed?: readonly unknown[];
  /** The types the schema takes there: a `type`'s, or every branch's of a `oneOf` the value's type fits none of. */
  types?: readonly string[];
  /** The bound a length, count or number broke (`minimum`, `maxLength`, `minItems`, `multipleOf`). */
  limit?: number;
  /** The `format` or `pattern` a string did not match. */
  format?: string;
  pattern?: string;
  /** A key refused as a key (`propertyNames`): the path is its object's. */
  badKey?: string;
  /** What the schema says the value is (its `description`), and what its list holds (its items' `title`): a person's words for a pattern. */
  description?: string;
  itemTitle?: string;
  /** Where in the schema it failed (ajv's `schemaPath`), for a formatter that weighs one violation against another. */
  schemaPath?: string;
  /** The value found at `path`, where a formatter's words quote it or suggest the one meant. */
  found?: unknown;
  /** What the contract expected there and what was found, as `check` and `proxy` report a violation. */
  expected?: string;
  actual?: string;
}

/** A violation that says what was expected and what was found: what `check`, `proxy` and the `respond` fault report. */
export type ExplainedViolation = Violation & { expected: string; actual: string };
