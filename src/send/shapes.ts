// The send API's responses in shape a or b: the only place that knows their envelopes.

import type { ApiError, ErrorCode } from "../errors.js";
import type { ResponseShape, SendError, SendSuccess } from "../wire.js";
import type { SendResponse } from "./exchange.js";

export const ERROR_CODE_HEADER = "x-sendmock-error-code";
export const JSON_TYPE = "application/json; charset=utf-8";

export function errorBody(error: ApiError, shape: ResponseShape): SendError {
  return shape === "a" ? { success: false, error: { code: error.code, message: error.message } } : { status: "error", message: error.message };
}

export function successBody(messageId: string, to: string, shape: ResponseShape): SendSuccess {
  return shape === "a"
    ? { success: true, message_id: messageId, status: "queued" }
    : { status: "success", message: `Email queued for delivery to ${to}`, email_id: messageId };
}

export interface ErrorWriting {
  shape: ResponseShape;
  statusCodes: Partial<Record<ErrorCode, number>>;
}

/** An error as a response: its status (given the configured overrides), code header, own headers and envelope (the writer types every JSON body). */
export function errorResponse(error: ApiError, writing: ErrorWriting, headers: Readonly<Record<string, string>> = {}): SendResponse {
  const own: Record<string, string> = { ...headers, [ERROR_CODE_HEADER]: error.code };
  for (const [name, value] of Object.entries(error.headers)) own[name.toLowerCase()] = value;
  return { status: error.statusWith(writing.statusCodes), headers: own, body: { json: errorBody(error, writing.shape) } };
}
