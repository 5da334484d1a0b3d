// How the inspection API reads a request body: JSON, also when `curl -d` did not say so.

import express, { type NextFunction, type Request, type RequestHandler, type Response } from "express";
import { parseJson } from "../domain/json.js";

/** curl's default type for `-d`; no call of the inspection API takes a form. */
const FORM_TYPE = "application/x-www-form-urlencoded";

function hasBody(req: Request): boolean {
  const length = req.headers["content-length"];
  return req.headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0");
}

/**
 * `curl -d '{"strict_data": true}' .../_mock/config` sends the form type, and a client that sets
 * no header sends none: both got 415 though the body was JSON. Now a body without a
 * Content-Type is read as JSON (not JSON, it is 400 invalid_json, as for application/json), and
 * a form-typed body is read as JSON when it parses as JSON; a real form (`a=1&b=2`) keeps its
 * type and its 415. Accepting the form type does not open the API to other sites' forms: a
 * browser's cross-site write is refused by its Origin first (request-guards.ts).
 * `POST /send` keeps the strict rule of the send contract: this runs under `/_mock` only.
 */
export function readAdminBodies(limit: string): RequestHandler[] {
  const untypedAsJson = (req: Request, _res: Response, next: NextFunction): void => {
    if (req.headers["content-type"] === undefined && hasBody(req)) req.headers["content-type"] = "application/json";
    next();
  };
  const formThatIsJson = (req: Request, _res: Response, next: NextFunction): void => {
    if (typeof req.body === "string") {
      const parsed = parseJson(req.body);
      if (parsed.ok) {
        req.body = parsed.value;
        req.headers["content-type"] = "application/json";
      }
    }
    next();
  };
  return [untypedAsJson, express.json({ limit }), express.text({ type: FORM_TYPE, limit }), formThatIsJson];
}
