// ApiError -> response shape a or b: the only place that knows the error envelopes.

import type { Response } from "express";
import type { ApiError, ErrorCode } from "../errors.js";
import type { RawAnswer } from "../server.js";
import type { ResponseShape, SendError, SendSuccess } from "../wire.js";

export const ERROR_CODE_HEADER = "X-Sendmock-Error-Code";

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

export function writeError(res: Response, error: ApiError, writing: ErrorWriting): void {
  res.status(error.statusWith(writing.statusCodes));
  res.set(ERROR_CODE_HEADER, error.code);
  res.set(error.headers);
  res.json(errorBody(error, writing.shape));
}

/** An error answer as data, for a socket express never saw (a request Node's parser refused). */
export function errorAnswer(error: ApiError, writing: ErrorWriting): RawAnswer {
  return {
    status: error.statusWith(writing.statusCodes),
    headers: { "Content-Type": "application/json; charset=utf-8", [ERROR_CODE_HEADER]: error.code, ...error.headers },
    body: JSON.stringify(errorBody(error, writing.shape)),
  };
}
