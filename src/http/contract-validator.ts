// express-openapi-validator set up the one way sendmock uses it, for any of its contracts.

import * as OpenApiValidator from "express-openapi-validator";
import type { OpenAPIV3_1 } from "openapi-types";

/**
 * Request and response validation from `contract`. The document was already checked by
 * swagger-parser; security is checked by sendmock's own middleware, which runs first and also
 * refuses `Bearer ` with an empty token; the full email format rejects addresses like `a@b`.
 */
export function contractValidator(contract: OpenAPIV3_1.Document) {
  return OpenApiValidator.middleware({
    apiSpec: structuredClone(contract) as never,
    validateApiSpec: false,
    validateRequests: { allErrors: true },
    validateResponses: true,
    validateSecurity: false,
    ignoreUndocumented: true,
    ajvFormats: { mode: "full" },
  });
}
