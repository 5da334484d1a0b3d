// Two guards for a mock on a developer's machine, which any web page the developer opens can
// try to reach: a page cannot change the mock's state by a cross-site form, and cannot read
// captured emails by pointing its own host name at 127.0.0.1 (DNS rebinding).

import type { NextFunction, Request, Response } from "express";
import { isLoopbackHost } from "../domain/addresses.js";
import { ApiError } from "../errors.js";

const READ_ONLY_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

function hostnameOf(hostHeader: string): string {
  // "[::1]:4010" -> "[::1]", "localhost:4010" -> "localhost"
  return hostHeader.startsWith("[") ? hostHeader.slice(0, hostHeader.indexOf("]") + 1) : (hostHeader.split(":")[0] ?? "");
}

/**
 * With a loopback bind, only loopback names and `allowedHosts` may appear in `Host`: a page
 * whose own name resolves to 127.0.0.1 sends its own name, and is refused.
 */
export function refuseForeignHosts(options: { boundToLoopback: boolean; allowedHosts: readonly string[] }) {
  const allowed = new Set(options.allowedHosts.map((host) => host.toLowerCase()));
  return (req: Request, _res: Response, next: NextFunction): void => {
    if (!options.boundToLoopback) {
      next();
      return;
    }
    const hostname = hostnameOf(req.get("host") ?? "").toLowerCase();
    if (isLoopbackHost(hostname) || allowed.has(hostname)) {
      next();
      return;
    }
    next(
      new ApiError(
        "invalid_request",
        `Host ${JSON.stringify(hostname)} is not allowed: a sendmock bound to loopback answers loopback names (127.0.0.1, localhost) and the names in allowed_hosts`,
        {
          status: 403,
        },
      ),
    );
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
