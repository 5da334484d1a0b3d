// The admin token on /_mock (the send API's keys are send/authenticate.ts's step).

import type { NextFunction, Request, Response } from "express";
import { tokenMatches } from "../domain/api-keys.js";
import { ApiError } from "../errors.js";
import { bearerToken } from "../send/authenticate.js";

export function requireAdminToken(adminToken: string | null) {
  return (req: Request, _res: Response, next: NextFunction): void => {
    if (adminToken === null) {
      next();
      return;
    }
    const token = bearerToken(req.get("authorization"));
    if (token === undefined) next(new ApiError("missing_api_key", "Missing admin token: send Authorization: Bearer <admin_token>"));
    else if (!tokenMatches(adminToken, token)) next(new ApiError("invalid_api_key", "Invalid admin token"));
    else next();
  };
}
