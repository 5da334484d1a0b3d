// Bearer-token checks: API keys on the send API, the admin token on /_mock.

import type { NextFunction, Request, Response } from "express";
import { tokenMatches, type KeyCheck } from "../domain/api-keys.js";
import { ApiError } from "../errors.js";
import { sendRecordOf } from "./request-record.js";

const BEARER = /^Bearer +(\S+) *$/i;

/** The token of `Authorization: Bearer <token>`, or undefined when the header is absent or malformed. */
export function bearerToken(req: Request): string | undefined {
  return BEARER.exec(req.get("authorization") ?? "")?.[1];
}

const missingKeyMessage = "Missing API key: send the header Authorization: Bearer <API_KEY>";
const missingKeyViolation = { path: "/headers/authorization", message: "authorization must be Bearer <API_KEY>" };

/** Notes the key on the request's record for later steps; rejects a missing, malformed or unknown key. */
export function requireApiKey(keys: KeyCheck) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const key = bearerToken(req);
    if (key === undefined) {
      next(new ApiError("missing_api_key", missingKeyMessage, { violations: [missingKeyViolation] }));
      return;
    }
    if (!keys.accepts(key)) {
      next(new ApiError("invalid_api_key", "Invalid API key: the key is not one of the configured api_keys"));
      return;
    }
    sendRecordOf(res).apiKey = key;
    next();
  };
}

export function requireAdminToken(adminToken: string | null) {
  return (req: Request, _res: Response, next: NextFunction): void => {
    if (adminToken === null) {
      next();
      return;
    }
    const token = bearerToken(req);
    if (token === undefined) next(new ApiError("missing_api_key", "Missing admin token: send Authorization: Bearer <admin_token>"));
    else if (!tokenMatches(adminToken, token)) next(new ApiError("invalid_api_key", "Invalid admin token"));
    else next();
  };
}
