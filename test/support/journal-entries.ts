// What the journal records of an accepted aSendRequest(), the fields a test knows in advance:
// one literal for the store contracts and the HTTP tests.

import type { JournalEntry } from "../../src/wire.js";

type AcceptedSendFields = Pick<
  JournalEntry,
  "method" | "path" | "status" | "error_code" | "error_message" | "violations" | "to" | "template_id" | "response_violations"
>;

export function anAcceptedSendEntry<T extends Partial<JournalEntry>>(overrides: T): AcceptedSendFields & T {
  return {
    method: "POST",
    path: "/send",
    status: 200,
    error_code: null,
    error_message: null,
    violations: [],
    to: "ada@example.com",
    template_id: "welcome",
    response_violations: null,
    ...overrides,
  };
}
