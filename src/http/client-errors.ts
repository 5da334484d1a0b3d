// Requests Node's HTTP parser refuses before express sees them -> errors a client can read.

import type { HttpResponse } from "../response.js";
import type { ServerLimits, ClientError } from "../server.js";
import { ApiError } from "../errors.js";
import type { ResponseShape } from "../wire.js";
import { errorResponseText } from "./error-shapes.js";

export interface ClientErrorSources {
  limits: ServerLimits;
  /** The send API's shape at the time of the error: which path was asked for is not known. */
  currentShape: () => ResponseShape;
}

/** The status is fixed: these are HTTP-level refusals, which `status_codes` does not move. */
function clientErrorAsApiError(error: ClientError, limits: ServerLimits): ApiError {
  switch (error.kind) {
    case "headers_too_large":
      return new ApiError(
        "invalid_request",
        `Request headers are larger than max_header_bytes (${limits.maxHeaderBytes} bytes): send smaller headers, or raise max_header_bytes`,
        { status: 431 },
      );
    case "request_timeout":
      return new ApiError(
        "invalid_request",
        `The request did not arrive in time: its headers must arrive within headers_timeout_ms (${limits.headersTimeoutMs} ms), the whole request within request_timeout_ms (${limits.requestTimeoutMs} ms)`,
        { status: 408 },
      );
    case "malformed_request":
      return new ApiError("invalid_request", `Malformed HTTP request: ${error.reason}`, { status: 400 });
  }
}

export function createClientErrorResponder(sources: ClientErrorSources): (error: ClientError) => HttpResponse {
  return (error) => {
    const response = errorResponseText(clientErrorAsApiError(error, sources.limits), { shape: sources.currentShape(), statusCodes: {} });
    // Responses from express get this from app.ts; this one never passes through it.
    return { ...response, headers: { ...response.headers, "X-Content-Type-Options": "nosniff" } };
  };
}
