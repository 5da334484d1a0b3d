// An operation's requests and answers held to its contract at the edge: a request that breaks it
// is refused before the pipeline; an answer that breaks it is a sendmock bug, answered as one.

import type { ErrorRequestHandler, NextFunction, Request, Response } from "express";
import type { OperationChecks } from "../contract/operation-checks.js";
import { ContractRefusal } from "../contract/refusal.js";

/** Refuses a request whose query or JSON body (already parsed) breaks the contract. */
export function refuseOffContractRequests(checks: OperationChecks) {
  return (req: Request, _res: Response, next: NextFunction): void => {
    const issues = checks.request(req.query, req.body);
    next(issues.length === 0 ? undefined : new ContractRefusal("bad_request", "The request breaks the contract", issues));
  };
}

/**
 * Checks every answer written with `res.json` from here on, errors included, against the
 * contract's schema for its status. One that breaks it is not sent: `answerError` (the route's
 * error handler) answers a server_error that names the violation instead, with `res.json`
 * restored first so that answer is not checked again. (Faults that break the contract on
 * purpose are written with `res.end`, and judged where they are written.)
 */
export function checkAnswers(checks: OperationChecks, answerError: ErrorRequestHandler) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const json = res.json;
    res.json = function checkedJson(this: Response, body: unknown): Response {
      res.json = json;
      const issues = checks.answer(res.statusCode, body);
      if (issues.length === 0) return json.call(this, body);
      answerError(new ContractRefusal("broken_answer", "An answer breaks the contract", issues), req, res, () => undefined);
      return res;
    };
    next();
  };
}
