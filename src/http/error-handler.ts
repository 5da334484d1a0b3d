// The one error handler: whatever was thrown becomes an ApiError, written in the configured shape.

import type { ErrorRequestHandler, Request, Response } from "express";
import type { ApiError, ErrorCode } from "../errors.js";
import type { ResponseShape } from "../wire.js";
import { writeError } from "./error-shapes.js";
import { toApiError } from "./validation-errors.js";

export interface ErrorHandlerOptions {
  /** The shape to respond in, read at each error: the send API's can change at run time. */
  shape: () => ResponseShape;
  statusCodes: Partial<Record<ErrorCode, number>>;
  /** Whether validation errors may quote the request body (the routes that parse one). */
  quoteBody: boolean;
  /** Whatever was thrown -> the ApiError to respond with; by default validation-errors.ts's, which logs nothing. */
  translate?: (error: unknown, body: unknown) => ApiError;
  /** Sees each error before it is written, e.g. to note it for the journal. */
  onError?: (error: ApiError, req: Request, res: Response) => void;
}

export function createErrorHandler(options: ErrorHandlerOptions): ErrorRequestHandler {
  return (error: unknown, req: Request, res: Response, next) => {
    if (res.headersSent) {
      next(error);
      return;
    }
    const apiError = (options.translate ?? toApiError)(error, options.quoteBody ? req.body : undefined);
    options.onError?.(apiError, req, res);
    writeError(res, apiError, { shape: options.shape(), statusCodes: options.statusCodes });
  };
}
