// toApiError, table-driven: whatever reaches an error handler -> the ApiError the client gets a response with.

import { describe, expect, it } from "vitest";
import { ContractRefusal } from "../../src/contract/refusal.js";
import { StoreUnavailableError } from "../../src/domain/store-errors.js";
import { ApiError, type ErrorCode, type Violation } from "../../src/errors.js";
import { toApiError } from "../../src/http/validation-errors.js";

const badRequest = (...issues: Violation[]) => new ContractRefusal("bad_request", "The request breaks the contract", issues);
const issue = (path: string, keyword: string, message: string): Violation => ({ path: `/body${path}`, keyword, message });
const withProps = (message: string, props: Record<string, unknown>): Error => Object.assign(new Error(message), props);

const passedThrough = new ApiError("rate_limited", "slow down");

const cases: {
  name: string;
  error: unknown;
  body?: unknown;
  code: ErrorCode;
  status?: number;
  message: string | RegExp;
  violations?: { path: string; message: string }[];
}[] = [
  { name: "an ApiError, as it is", error: passedThrough, code: "rate_limited", message: "slow down" },
  {
    name: "an unreachable store, as a retryable 503",
    error: new StoreUnavailableError("redis store at redis://x", "timeout"),
    code: "server_error",
    status: 503,
    message: "redis store at redis://x is unreachable: timeout",
  },
  {
    name: "missing required fields, named in the message",
    error: badRequest(issue("/to", "required", "must have required property 'to'"), issue("/data", "required", "must have required property 'data'")),
    code: "missing_required_field",
    message: "Missing required fields: to, data",
    violations: [
      { path: "/to", message: "to is required" },
      { path: "/data", message: "data is required" },
    ],
  },
  {
    name: "bad recipients, quoting the value from the body",
    error: badRequest({ ...issue("/cc/1", "format", 'must match format "email"'), format: "email" }),
    body: { cc: ["ok@example.com", "not-an-address"] },
    code: "invalid_recipient",
    message: 'Invalid recipient email address in cc[1] ("not-an-address")',
    violations: [{ path: "/cc/1", message: "cc[1] is not a valid email address" }],
  },
  {
    name: "a date and time in another format, not as an email address",
    error: badRequest({ path: "/query/since", keyword: "format", message: 'must match format "date-time"', format: "date-time" }),
    code: "invalid_request",
    message: "Invalid request: query.since must be a date and time such as 2026-11-22T09:26:00Z (RFC 3339)",
  },
  {
    name: "any other contract failure, as invalid_request",
    error: badRequest(issue("/subject", "pattern", 'must match pattern "^[^\\r\\n]*$"')),
    code: "invalid_request",
    message: "Invalid request: subject must not contain a line break (CR or LF)",
  },
  {
    name: "an answer that breaks sendmock's own contract, as a bug",
    error: new ContractRefusal("broken_response", "A response breaks the contract", [
      { path: "/response/message_id", keyword: "required", message: "is required" },
    ]),
    code: "server_error",
    message: "sendmock broke its own contract (a bug in sendmock): /response/message_id is required",
  },
  {
    name: "an unsupported media type",
    error: new ContractRefusal("unsupported_media_type", "unsupported media type application/xml"),
    code: "unsupported_media_type",
    message: /must be sent as application\/json/,
  },
  {
    name: "a body that is not JSON",
    error: withProps("Unexpected token", { type: "entity.parse.failed" }),
    code: "invalid_json",
    message: "Invalid JSON body: Unexpected token",
  },
  {
    name: "a body over the limit",
    error: withProps("too large", { type: "entity.too.large", limit: 1024 }),
    code: "payload_too_large",
    message: "Request body is larger than the limit of 1024 bytes",
  },
  {
    name: "an unsupported charset",
    error: withProps("unsupported charset", { type: "charset.unsupported" }),
    code: "unsupported_media_type",
    message: "Unsupported body encoding: unsupported charset",
  },
  {
    name: "an unsupported encoding",
    error: withProps("unsupported encoding", { type: "encoding.unsupported" }),
    code: "unsupported_media_type",
    message: "Unsupported body encoding: unsupported encoding",
  },
  {
    name: "a body aborted on the way",
    error: withProps("aborted", { type: "request.aborted" }),
    code: "invalid_request",
    message: "The request was aborted before its body arrived",
  },
  {
    name: "a body that does not decompress",
    error: withProps("incorrect header check", { code: "Z_DATA_ERROR" }),
    code: "invalid_json",
    message: /could not be decompressed as its Content-Encoding says \(incorrect header check\)/,
  },
  { name: "express's 404", error: withProps("bad path", { status: 404 }), code: "not_found", message: "Not found: bad path" },
  { name: "express's other 4xx", error: withProps("URI malformed", { status: 400 }), code: "invalid_request", message: "Invalid request: URI malformed" },
  { name: "anything else, as an internal error", error: new Error("boom"), code: "server_error", message: "Internal error in sendmock: boom" },
  { name: "a thrown non-error", error: "boom", code: "server_error", message: "Internal error in sendmock: boom" },
];

describe("toApiError", () => {
  it.each(cases)("turns $name into $code", ({ error, body, code, status, message, violations }) => {
    const apiError = toApiError(error, body);
    expect(apiError).toBeInstanceOf(ApiError);
    expect(apiError.code).toBe(code);
    if (status !== undefined) expect(apiError.fixedStatus).toBe(status);
    if (typeof message === "string") expect(apiError.message).toBe(message);
    else expect(apiError.message).toMatch(message);
    if (violations !== undefined) expect(apiError.violations).toEqual(violations);
  });

  it("returns an ApiError it is given as the same object", () => {
    expect(toApiError(passedThrough, undefined)).toBe(passedThrough);
  });
});
