// ApiError -> response shape a or b for express's routes and the raw socket (the envelopes themselves are send/shapes.ts's).

import type { Response } from "express";
import type { ApiError } from "../errors.js";
import type { HttpResponse } from "../response.js";
import { ERROR_CODE_HEADER, errorBody, JSON_TYPE, type ErrorWriting } from "../send/shapes.js";

export function writeError(res: Response, error: ApiError, writing: ErrorWriting): void {
  res.status(error.statusWith(writing.statusCodes));
  res.set(ERROR_CODE_HEADER, error.code);
  res.set(error.headers);
  res.json(errorBody(error, writing.shape));
}

/** An error response as data, for a socket express never saw (a request Node's parser refused). */
export function errorResponseText(error: ApiError, writing: ErrorWriting): HttpResponse {
  return {
    status: error.statusWith(writing.statusCodes),
    headers: { "Content-Type": JSON_TYPE, [ERROR_CODE_HEADER]: error.code, ...error.headers },
    body: JSON.stringify(errorBody(error, writing.shape)),
  };
}
