// Reports each call under /_mock (method, path, status, time) to a verbose request log.

import type { NextFunction, Request, RequestHandler, Response } from "express";
import type { InspectionCall } from "../domain/request-log.js";

export function logInspectionCalls(report: (call: InspectionCall) => void): RequestHandler {
  return (req: Request, res: Response, next: NextFunction): void => {
    const startedAt = performance.now();
    res.once("close", () => {
      report({
        method: req.method,
        // The query can be long (a search) and says little a line needs; the path names the call.
        path: req.originalUrl.split("?", 1)[0] ?? req.originalUrl,
        status: res.headersSent ? res.statusCode : 0,
        duration_ms: Math.round((performance.now() - startedAt) * 1000) / 1000,
      });
    });
    next();
  };
}
