// One operation of a contract checked as express-openapi-validator did, from compiled schemas
// (built ahead for the shipped documents): its request's query keys and body, and each answer.

import type { ErrorObject, ValidateFunction } from "ajv";
import type { OpenAPIV3_1 } from "openapi-types";
import type { Contract } from "./load.js";
import type { ContractIssue } from "./refusal.js";
import { operationPointer, requestBodyPointer, responseBodyPointers, schemaValidator } from "./schema-validator.js";

export interface OperationChecks {
  /** What in a request's query and JSON body breaks the contract; empty when both fit. */
  request(query: Readonly<Record<string, unknown>>, body: unknown): ContractIssue[];
  /** What in an answer of `status` with the JSON `body` breaks the contract; empty when it fits. */
  answer(status: number, body: unknown): ContractIssue[];
}

/**
 * ajv's errors as eov reported them: a missing or unknown key is named in the path, and an enum
 * lists its values, so the messages a client reads did not change when eov stopped checking
 * POST /send (what eov's `ajvErrorsToValidatorError` and `augmentAjvErrors` did).
 */
function issuesOf(errors: readonly ErrorObject[], root: string): ContractIssue[] {
  return errors.map((error) => {
    const params = error.params as Record<string, unknown>;
    const key = (params.missingProperty ?? params.additionalProperty ?? params.unevaluatedProperty) as string | undefined;
    const allowed = error.keyword === "enum" && Array.isArray(params.allowedValues) ? `: ${params.allowedValues.join(", ")}` : "";
    return {
      path: `${root}${error.instancePath}${key === undefined ? "" : `/${key}`}`,
      keyword: error.keyword,
      message: `${error.message ?? "is invalid"}${allowed}`,
    };
  });
}

function failures(validate: ValidateFunction, value: unknown, root: string): ContractIssue[] {
  return validate(value) ? [] : issuesOf(validate.errors ?? [], root);
}

/** The schema of each response key (`200`, `4XX`, `default`), or null for a response without a JSON body. */
type AnswerChecks = ReadonlyMap<string, ValidateFunction | null>;

function answerIssues(checks: AnswerChecks, status: number, body: unknown): ContractIssue[] {
  const code = String(status);
  const key = [code, `${code[0] ?? ""}XX`, "default"].find((candidate) => checks.has(candidate));
  if (key === undefined) return [{ path: "/response", keyword: "", message: `no schema defined for status code '${code}' in the openapi spec` }];
  const validate = checks.get(key);
  if (!validate) return body === undefined ? [] : [{ path: "/response", keyword: "", message: "response should NOT have a body" }];
  return failures(validate, body, "/response");
}

/**
 * The checks of `method path` in `contract`, compiled (or loaded) now, once per process and
 * document (schemaValidator caches them): no request compiles anything.
 */
export function operationChecks(contract: Contract, path: string, method: "get" | "post" | "put" | "patch" | "delete"): OperationChecks {
  const operation: OpenAPIV3_1.OperationObject | undefined = contract.document.paths?.[path]?.[method];
  if (!operation) throw new Error(`${contract.file} has no ${method.toUpperCase()} ${path}`);
  const pointer = operationPointer(path, method);
  const requestBody = operation.requestBody && "content" in operation.requestBody ? schemaValidator(contract, requestBodyPointer(pointer)) : undefined;
  const answers: AnswerChecks = new Map(
    [...responseBodyPointers(contract.document, pointer)].map(([key, schema]) => [key, schema === null ? null : schemaValidator(contract, schema)]),
  );
  // The emulated API reads no query parameter; one the document does not name is refused, as eov did.
  const queryNames = new Set(
    (operation.parameters ?? [])
      .filter((parameter): parameter is OpenAPIV3_1.ParameterObject => "in" in parameter && parameter.in === "query")
      .map((parameter) => parameter.name),
  );
  return {
    request(query, body) {
      const unknown = Object.keys(query).filter((name) => !queryNames.has(name));
      if (unknown.length > 0) return unknown.map((name) => ({ path: `/query/${name}`, keyword: "", message: `Unknown query parameter '${name}'` }));
      return requestBody ? failures(requestBody, body, "/body") : [];
    },
    answer: (status, body) => answerIssues(answers, status, body),
  };
}
