// Two guards for a mock on a developer's machine, which any web page the developer opens can
// try to reach: a page cannot change the mock's state by a cross-site form, and cannot read
// captured emails by pointing its own host name at 127.0.0.1 (DNS rebinding).

import type { NextFunction, Request, Response } from "express";
import { ApiError } from "../errors.js";
import { createHostCheck, type HostGuard } from "../send/host-guard.js";

const READ_ONLY_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** The host check of send/host-guard.ts for the routes express serves. */
export function refuseForeignHosts(guard: HostGuard) {
  const check = createHostCheck(guard);
  return (req: Request, _res: Response, next: NextFunction): void => {
    next(check(req.get("host")));
  };
}

/**
 * A browser says where a request comes from; a write to /_mock from another origin (a form on
 * some page) is refused unless that origin is in cors_origins. Clients that are not browsers
 * send no Origin and are not affected.
 */
export function refuseCrossSiteWrites(options: { corsOrigins: readonly string[] }) {
  const allowed = new Set(options.corsOrigins);
  return (req: Request, _res: Response, next: NextFunction): void => {
    const origin = req.get("origin");
    if (READ_ONLY_METHODS.has(req.method) || origin === undefined || allowed.has(origin)) {
      next();
      return;
    }
    const ownOrigin = `${req.protocol}://${req.get("host") ?? ""}`;
    if (origin === ownOrigin) {
      next();
      return;
    }
    next(
      new ApiError("invalid_request", `Cross-site request refused: ${req.method} ${req.path} came from ${origin}; add it to cors_origins to allow it`, {
        status: 403,
      }),
    );
  };
}
