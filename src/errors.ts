// The one error type of sendmock and the catalogue of its codes with their default statuses.

import { excerpt, MAX_MESSAGE_CHARS, MAX_VIOLATIONS } from "./domain/excerpt.js";
import { DomainFailure } from "./domain/failure.js";
import type { Violation } from "./domain/violation.js";

export type { ExplainedViolation, Violation } from "./domain/violation.js";

/** Default HTTP status of every error code; `status_codes` in the config may move any of them. */
export const DEFAULT_ERROR_STATUS = {
  missing_api_key: 401,
  invalid_api_key: 401,
  unsupported_media_type: 415,
  invalid_json: 400,
  payload_too_large: 413,
  missing_required_field: 400,
  invalid_request: 400,
  invalid_recipient: 422,
  invalid_template_id: 422,
  missing_template_data: 422,
  unknown_template_data: 422,
  rate_limited: 429,
  server_error: 500,
  not_found: 404,
  method_not_allowed: 405,
  /** The proxy's upstream responded outside the contract, and `--strict` refuses to pass it on. */
  contract_violation: 502,
  /** `Idempotency-Key` is not 1 to 255 visible ASCII characters. */
  invalid_idempotency_key: 400,
  /** The same `Idempotency-Key` came with another body (422, as draft-ietf-httpapi-idempotency-key-header says). */
  idempotency_key_reused: 422,
  /** The first request with this `Idempotency-Key` is still waiting for its response (409, as the draft says). */
  idempotency_key_in_flight: 409,
} as const;

export type ErrorCode = keyof typeof DEFAULT_ERROR_STATUS;

export const ERROR_CODES = Object.keys(DEFAULT_ERROR_STATUS) as ErrorCode[];

export function isErrorCode(value: string): value is ErrorCode {
  return Object.hasOwn(DEFAULT_ERROR_STATUS, value);
}

export interface ApiErrorOptions {
  /** Fixes the status, ignoring `status_codes` (an injected 503, say). */
  status?: number;
  headers?: Record<string, string>;
  violations?: Violation[];
  /** What went wrong underneath, for the log: a bug wrapped as a server_error keeps its stack here. */
  cause?: unknown;
}

/** At most MAX_VIOLATIONS, each cut short, and a last one that counts the rest. */
export function boundedViolations(violations: readonly Violation[]): Violation[] {
  const kept = violations.slice(0, MAX_VIOLATIONS).map((violation) => ({ path: excerpt(violation.path), message: excerpt(violation.message, 1024) }));
  const more = violations.length - kept.length;
  return more > 0 ? [...kept, { path: "", message: `and ${more} more violations` }] : kept;
}

/**
 * Every failure a client can see. Whoever writes the response turns it into shape a or b;
 * nothing else needs to know those shapes.
 */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly fixedStatus: number | undefined;
  readonly headers: Readonly<Record<string, string>>;
  readonly violations: readonly Violation[];

  constructor(code: ErrorCode, message: string, options: ApiErrorOptions = {}) {
    // A client's mistake, not a fault in sendmock: no stack to read, and capturing one took a
    // sixth of the error path's time in the bench. A wrapped bug keeps the stack of its cause.
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    // Messages and violations quote what the client sent: cut here, every response and journal
    // entry that repeats them stays small whatever the request held.
    super(excerpt(message, MAX_MESSAGE_CHARS), options.cause === undefined ? undefined : { cause: options.cause });
    Error.stackTraceLimit = stackTraceLimit;
    this.name = "ApiError";
    this.code = code;
    this.fixedStatus = options.status;
    this.headers = options.headers ?? {};
    this.violations = boundedViolations(options.violations ?? []);
  }

  /** The status to respond with, given the configured overrides. */
  statusWith(overrides: Partial<Record<ErrorCode, number>>): number {
    return this.fixedStatus ?? overrides[this.code] ?? DEFAULT_ERROR_STATUS[this.code];
  }
}

/** What the domain refused, as the ApiError its caller receives: its code gives the status. */
export function apiErrorOf(failure: DomainFailure): ApiError {
  return new ApiError(failure.code, failure.message, { violations: [...failure.details] });
}

/**
 * `operation` as the library's handle offers it: what the domain refuses rejects with the ApiError
 * an HTTP caller receives, so `mock.faults.add` and `POST /_mock/faults` refuse alike.
 */
export function rejectingAsApiError<A extends unknown[], R>(operation: (...args: A) => Promise<R>): (...args: A) => Promise<R> {
  return async (...args) => {
    try {
      return await operation(...args);
    } catch (error) {
      throw error instanceof DomainFailure ? apiErrorOf(error) : error;
    }
  };
}
