// The battery of `sendmock check`: what each case sends and what it expects. Data only.

/**
 * Where every error-path case sends: `.invalid` is reserved (RFC 2606) and never resolves, so
 * even a server that wrongly accepts one of these requests cannot deliver it. The address is
 * a valid email format (ajv-formats "full" mode and sendmock accept it), so it adds no defect
 * of its own to the case.
 */
export const UNDELIVERABLE = "sendmock-check@example.invalid";
export const NO_SUCH_TEMPLATE = "sendmock-check-no-such-template";

export interface CaseInputs {
  /** A template id that exists (`--template`). */
  templateId: string;
  /** Placeholder values for it. */
  data: Record<string, unknown>;
  /** `--recipient`; only the sending case uses it. */
  recipient: string;
}

export interface CaseRequest {
  /** `null` sends no Authorization header; absent sends `Bearer <api key>`. */
  authorization?: string | null;
  /** Absent sends `application/json`. */
  contentType?: string;
  /** A value is sent as JSON; a string is sent as written. */
  body: unknown;
  raw?: boolean;
}

export interface CaseExpectation {
  /** `4xx`: any client error; `2xx`: a success with a tracking id. */
  status: "4xx" | "2xx";
  /** The error code the response must carry where it shows one (shape a body, or X-Sendmock-Error-Code). */
  errorCode?: string;
  /** A word the error's message must contain where it shows one (rule 2: the message says the template ID is invalid). */
  messageMentions?: string;
}

/** A case that only some contracts ask for: run when `applies` says so of the request schema, else skipped for `reason`. */
export interface CaseCondition {
  applies(requestSchema: { additionalProperties?: unknown; unevaluatedProperties?: unknown }): boolean;
  reason: string;
}

export interface CheckCase {
  id: string;
  name: string;
  /** True for the case that may deliver mail: it runs only with `--allow-send`, to `--recipient`. */
  sends: boolean;
  request(inputs: CaseInputs): CaseRequest;
  expect: CaseExpectation;
  condition?: CaseCondition;
}

/** The published spec never says members it does not name are refused; sendmock's contract does. */
const REFUSES_UNKNOWN_FIELDS: CaseCondition = {
  applies: (schema) => schema.additionalProperties === false || schema.unevaluatedProperties === false,
  reason: "the contract allows members it does not name",
};

const valid = (inputs: CaseInputs) => ({ to: UNDELIVERABLE, template_id: inputs.templateId, data: inputs.data });

function without(body: Record<string, unknown>, field: string): Record<string, unknown> {
  return Object.fromEntries(Object.entries(body).filter(([key]) => key !== field));
}

export const CASES: readonly CheckCase[] = [
  { id: "missing-to", name: "missing to", sends: false, request: (i) => ({ body: without(valid(i), "to") }), expect: { status: "4xx" } },
  {
    id: "missing-template-id",
    name: "missing template_id",
    sends: false,
    request: (i) => ({ body: without(valid(i), "template_id") }),
    expect: { status: "4xx" },
  },
  { id: "missing-data", name: "missing data", sends: false, request: (i) => ({ body: without(valid(i), "data") }), expect: { status: "4xx" } },
  {
    id: "invalid-recipient",
    name: "invalid recipient",
    sends: false,
    request: (i) => ({ body: { ...valid(i), to: "not-an-address" } }),
    expect: { status: "4xx", errorCode: "invalid_recipient" },
  },
  {
    id: "unknown-template",
    name: "unknown template",
    sends: false,
    request: (i) => ({ body: { ...valid(i), template_id: NO_SUCH_TEMPLATE } }),
    expect: { status: "4xx", messageMentions: "template" },
  },
  // The spec leaves the response to a missing or wrong key open ("not shown"), so any 4xx passes.
  { id: "missing-auth", name: "missing auth", sends: false, request: (i) => ({ authorization: null, body: valid(i) }), expect: { status: "4xx" } },
  {
    id: "malformed-auth",
    name: "malformed auth",
    sends: false,
    request: (i) => ({ authorization: "Basic abc", body: valid(i) }),
    expect: { status: "4xx" },
  },
  {
    id: "wrong-content-type",
    name: "wrong content type",
    sends: false,
    request: (i) => ({ contentType: "text/plain", body: valid(i) }),
    expect: { status: "4xx" },
  },
  { id: "malformed-json", name: "malformed JSON", sends: false, request: () => ({ body: "{bad", raw: true }), expect: { status: "4xx" } },
  {
    id: "unknown-field",
    name: "unknown field",
    sends: false,
    request: (i) => ({ body: { ...valid(i), zzz: 1 } }),
    expect: { status: "4xx" },
    condition: REFUSES_UNKNOWN_FIELDS,
  },
  {
    id: "valid-send",
    name: "valid send",
    sends: true,
    request: (i) => ({ body: { to: i.recipient, template_id: i.templateId, data: i.data } }),
    expect: { status: "2xx" },
  },
];

/** Run with `--allow-send` only, after the others: sends one message twice with one Idempotency-Key. */
export const IDEMPOTENCY_CASE = { id: "idempotency-key", name: "idempotency key replay" } as const;
