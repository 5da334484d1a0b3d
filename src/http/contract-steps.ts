// An operation's requests and answers held to its contract at the edge: a request that breaks it
// is refused before the pipeline; an answer that breaks it is a sendmock bug, answered as one.

import type { ErrorRequestHandler, NextFunction, Request, Response } from "express";
import type { OperationChecks, OperationFinder } from "../contract/operation-checks.js";
import { ContractRefusal } from "../contract/refusal.js";

/** The path parameters of an operation without any, such as POST /send: one object for every request. */
const NO_PARAMS: Readonly<Record<string, string>> = Object.freeze({});

/** Refuses a request whose query, media type or JSON body (already parsed) breaks the contract of its operation. */
export function refuseOffContractRequests(checks: OperationChecks) {
  return (req: Request, _res: Response, next: NextFunction): void => {
    refuseIfOffContract(checks, NO_PARAMS, req, next);
  };
}

function refuseIfOffContract(checks: OperationChecks, params: Readonly<Record<string, string>>, req: Request, next: NextFunction): void {
  const refusal = checks.request({ query: req.query, params, headers: req.headers, contentType: req.headers["content-type"], body: req.body as unknown });
  if (refusal) {
    next(refusal);
    return;
  }
  // express parses the query again at each read of req.query; the routes read this one.
  if (checks.typedQuery) Object.defineProperty(req, "query", { value: checks.typedQuery(req.query), writable: true, configurable: true, enumerable: true });
  next();
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
    checkAnswersOf(checks, answerError, req, res);
    next();
  };
}

function checkAnswersOf(checks: OperationChecks, answerError: ErrorRequestHandler, req: Request, res: Response): void {
  const json = res.json;
  res.json = function checkedJson(this: Response, body: unknown): Response {
    res.json = json;
    const issues = checks.answer(res.statusCode, body);
    if (issues.length === 0) return json.call(this, body);
    answerError(new ContractRefusal("broken_answer", "An answer breaks the contract", issues), req, res, () => undefined);
    return res;
  };
}

/**
 * Holds each call of a documented operation to the contract (its answers, then its request);
 * a path or method the contract does not document passes untouched, for the routes to answer.
 */
export function checkDocumentedCalls(findOperation: OperationFinder, answerError: ErrorRequestHandler) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const found = findOperation(req.method, req.path);
    if (!found) {
      next();
      return;
    }
    checkAnswersOf(found.checks, answerError, req, res);
    refuseIfOffContract(found.checks, found.params, req, next);
  };
}
