// What every error response of POST /send must be, in either response shape: status, error code header, envelope and message.

import type { Response } from "supertest";
import { expect } from "vitest";
import type { ErrorCode, ResponseShape } from "../../src/index.js";
import { errorCodeOf } from "./helpers.js";

export const SHAPES: readonly ResponseShape[] = ["a", "b"];

/** The human-readable message of an error response, in either shape. */
export function errorMessageOf(response: Response): string {
  const body = response.body as { error?: { message?: unknown }; message?: unknown };
  const message = body.error?.message ?? body.message;
  expect(message, "an error answer carries a message").toBeTypeOf("string");
  return String(message);
}

export interface ExpectedError {
  code: ErrorCode;
  status: number;
  /** What the message must say (a substring or a pattern). */
  says?: string | RegExp;
}

/** Status, `X-Sendmock-Error-Code`, the exact envelope of `shape`, and the message if `says` is given; returns the message. */
export function expectError(response: Response, expected: ExpectedError, shape: ResponseShape = "a"): string {
  expect(response.status).toBe(expected.status);
  expect(errorCodeOf(response)).toBe(expected.code);
  const message = errorMessageOf(response);
  expect(response.body).toEqual(shape === "a" ? { success: false, error: { code: expected.code, message } } : { status: "error", message });
  if (expected.says !== undefined) expect(message).toMatch(expected.says);
  return message;
}
