// The contract checker of `sendmock check` (another implementation's responses), `sendmock proxy`
// (the real service's) and the `respond` fault: POST /send of any contract, judged by the engine.

import SwaggerParser from "@apidevtools/swagger-parser";
import type { OpenAPIV3_1 } from "openapi-types";
import type { ExplainedViolation } from "../errors.js";
import { operationPointer, requestBodyOf } from "./document-pointers.js";
import { closestViolations } from "./engine.js";
import { ContractError, type Contract } from "./load.js";
import type { HttpResponse } from "../response.js";
import { operationChecks } from "./operation-checks.js";

export interface ContractChecker {
  /** POST /send's request body schema, dereferenced: what `sendmock check` generates requests from. */
  readonly requestSchema: OpenAPIV3_1.SchemaObject;
  /** Whether POST /send lists this exact status (not only a `4XX` range): 401 for a missing key, 405 for another method. */
  documentsStatus(status: number): boolean;
  checkRequest(body: unknown): ExplainedViolation[];
  /**
   * What breaks the contract: `/status` for the HTTP status, `/headers/<name>` for a header, and a
   * pointer into the body under `/body` (`/body/error/code`) for the body.
   */
  checkResponse(response: HttpResponse): ExplainedViolation[];
}

export async function createContractChecker(contract: Contract): Promise<ContractChecker> {
  if (contract.document.paths?.["/send"]?.post === undefined) throw new ContractError(`${contract.file}: no POST /send operation`);
  const checks = operationChecks(contract, "/send", "post");
  // The validators are the engine's; only the generator of `check` needs the schema itself, every `$ref` in it replaced.
  const document = (await SwaggerParser.dereference(structuredClone(contract.document) as never)) as OpenAPIV3_1.Document;
  const body = document.paths?.["/send"]?.post?.requestBody as OpenAPIV3_1.RequestBodyObject | undefined;
  const requestSchema: OpenAPIV3_1.SchemaObject | undefined = body?.content["application/json"]?.schema;
  const requestPointer = requestBodyOf(contract.document, operationPointer("/send", "post"))?.pointer;
  if (!requestSchema || requestPointer === undefined) throw new ContractError(`${contract.file}: POST /send has no application/json request body schema`);
  return {
    requestSchema,
    documentsStatus: (status) => checks.documentsStatus(status),
    checkRequest: (value) => closestViolations(contract, requestPointer, value),
    checkResponse: (response) => checks.exchangeResponse(response),
  };
}
