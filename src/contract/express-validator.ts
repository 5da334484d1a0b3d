// express-openapi-validator set up the one way sendmock uses it, for any of its contracts, and
// built once per process for each document.

import contentType from "content-type";
import type { NextFunction, Request, RequestHandler, Response } from "express";
import * as OpenApiValidator from "express-openapi-validator";
import type { Contract } from "./load.js";

/**
 * express-openapi-validator compiles, and keeps for good, one validator per distinct
 * Content-Type value, parameters included: 90 ms and 0.6 MB for each new one, and a `%` in a
 * parameter made it throw. UTF-8 JSON in any spelling is shown to it as one value.
 */
function oneJsonContentType(req: Request, _res: Response, next: NextFunction): void {
  const header = req.headers["content-type"];
  try {
    const parsed = header === undefined ? undefined : contentType.parse(header);
    if (parsed?.type === "application/json" && (parsed.parameters.charset ?? "utf-8").toLowerCase() === "utf-8")
      req.headers["content-type"] = "application/json";
  } catch {
    // A header that does not parse is left as it is, for the validator to refuse.
  }
  next();
}

/**
 * One validator per loaded document, for the whole process. Each new validator compiles the
 * OpenAPI meta-schema, the document and then each route's schemas (150-250 ms a mock before this
 * cache); the handlers keep only compiled schemas, and every mock's data goes through
 * `req`/`res`, so mocks built on one document can share them. Keyed by the cached `Contract`
 * object, so an edited document (another object) gets its own.
 */
const validators = new WeakMap<Contract, RequestHandler[]>();

/**
 * Request and response validation from `contract`. The document was already checked by
 * swagger-parser; security is checked by sendmock's own middleware, which runs first and also
 * refuses `Bearer ` with an empty token; the full email format rejects addresses like `a@b`.
 */
export function contractValidator(contract: Contract): RequestHandler[] {
  let handlers = validators.get(contract);
  if (!handlers) {
    handlers = [
      oneJsonContentType,
      ...OpenApiValidator.middleware({
        apiSpec: structuredClone(contract.document) as never,
        validateApiSpec: false,
        validateRequests: { allErrors: true },
        validateResponses: true,
        validateSecurity: false,
        ignoreUndocumented: true,
        ajvFormats: { mode: "full" },
      }),
    ];
    validators.set(contract, handlers);
  }
  return handlers;
}
