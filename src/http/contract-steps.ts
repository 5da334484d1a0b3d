// An operation's requests and responses held to its contract at the edge: a request that breaks it
// is refused before the pipeline; a response that breaks it is a sendmock bug, reported as one.

import type { ErrorRequestHandler, NextFunction, Request, Response } from "express";
import type { OperationChecks, OperationFinder } from "../contract/operation-checks.js";
import { ContractRefusal } from "../contract/refusal.js";

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

function checkResponsesOf(checks: OperationChecks, respondWithError: ErrorRequestHandler, req: Request, res: Response): void {
  const json = res.json;
  res.json = function checkedJson(this: Response, body: unknown): Response {
    res.json = json;
    const issues = checks.response(res.statusCode, body);
    if (issues.length === 0) return json.call(this, body);
    respondWithError(new ContractRefusal("broken_response", "A response breaks the contract", issues), req, res, () => undefined);
    return res;
  };
}

/**
 * Holds each call of a documented operation to the contract (its responses, then its request);
 * a path or method the contract does not document passes untouched, for the routes to respond.
 */
export function checkDocumentedCalls(findOperation: OperationFinder, respondWithError: ErrorRequestHandler) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const found = findOperation(req.method, req.path);
    if (!found) {
      next();
      return;
    }
    checkResponsesOf(found.checks, respondWithError, req, res);
    refuseIfOffContract(found.checks, found.params, req, next);
  };
}
