// Checks any request or answer of the send API against a contract (openapi/send.yaml,
// openapi/service.yaml or a user's document), outside express: for `sendmock check` (another
// implementation's answers), `sendmock proxy` (the real service's) and the `respond` fault.

import SwaggerParser from "@apidevtools/swagger-parser";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import type { OpenAPIV3_1 } from "openapi-types";
import { ContractError, type Contract } from "./load.js";
import { show, violationOf, type ContractViolation } from "./violations.js";

export interface ExchangeAnswer {
  status: number;
  headers: Record<string, string | undefined>;
  /** The raw body text. */
  body: string;
}

export interface ContractChecker {
  /** POST /send's request body schema, dereferenced: what `sendmock check` generates requests from. */
  readonly requestSchema: OpenAPIV3_1.SchemaObject;
  /** Whether POST /send lists this exact status (not only a `4XX` range): 401 for a missing key, 405 for another method. */
  documentsStatus(status: number): boolean;
  checkRequest(body: unknown): ContractViolation[];
  /**
   * What breaks the contract: `/status` for the HTTP status, `/headers/<name>` for a header, and a
   * pointer into the body under `/body` (`/body/error/code`) for the body.
   */
  checkAnswer(answer: ExchangeAnswer): ContractViolation[];
}

type Schema = OpenAPIV3_1.SchemaObject;

/** Validates against `schema`; for a `oneOf` of shapes, reports the branch that came closest. */
function checkValue(ajv: Ajv2020, cache: Map<object, ValidateFunction>, schema: Schema, value: unknown): ContractViolation[] {
  const compile = (part: object): ValidateFunction => {
    let validate = cache.get(part);
    if (!validate) {
      validate = ajv.compile(part);
      cache.set(part, validate);
    }
    return validate;
  };
  const branches = (schema.oneOf ?? [schema]) as Schema[];
  let closest: ContractViolation[] | undefined;
  for (const branch of branches) {
    const validate = compile(branch);
    if (validate(value)) return [];
    const violations = (validate.errors ?? []).map((error) => violationOf(error, value));
    if (closest === undefined || violations.length < closest.length) closest = violations;
  }
  return closest ?? [];
}

/** A header's text as the value its schema describes: a number where it says integer or number. */
function headerValue(schema: Schema, text: string): unknown {
  const numeric = schema.type === "integer" || schema.type === "number";
  return numeric && /^-?\d+(\.\d+)?$/.test(text.trim()) ? Number(text) : text;
}

function responseFor(operation: OpenAPIV3_1.OperationObject, status: number): OpenAPIV3_1.ResponseObject | undefined {
  const responses = operation.responses ?? {};
  return (responses[String(status)] ?? responses[`${String(status).charAt(0)}XX`] ?? responses.default) as OpenAPIV3_1.ResponseObject | undefined;
}

export async function createContractChecker(contract: Contract): Promise<ContractChecker> {
  const document = (await SwaggerParser.dereference(structuredClone(contract.document) as never)) as OpenAPIV3_1.Document;
  const operation = document.paths?.["/send"]?.post;
  if (!operation) throw new ContractError(`${contract.file}: no POST /send operation`);
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv, { mode: "full" });
  const cache = new Map<object, ValidateFunction>();
  const body = operation.requestBody as OpenAPIV3_1.RequestBodyObject | undefined;
  const requestSchema: Schema | undefined = body?.content["application/json"]?.schema;
  if (!requestSchema) throw new ContractError(`${contract.file}: POST /send has no application/json request body schema`);
  const inBody = (violation: ContractViolation): ContractViolation => ({ ...violation, path: `/body${violation.path}` });

  return {
    requestSchema,
    documentsStatus(status) {
      return Object.hasOwn(operation.responses, String(status));
    },
    checkRequest(body) {
      return checkValue(ajv, cache, requestSchema, body);
    },

    checkAnswer(answer) {
      const response = responseFor(operation, answer.status);
      if (!response) {
        return [
          {
            path: "/status",
            message: `status ${answer.status} is not documented for POST /send`,
            expected: `one of ${Object.keys(operation.responses).join(", ")}`,
            actual: String(answer.status),
          },
        ];
      }
      const violations: ContractViolation[] = [];
      for (const [name, header] of Object.entries(response.headers ?? {})) {
        const { required, schema } = header as OpenAPIV3_1.HeaderObject;
        const path = `/headers/${name.toLowerCase()}`;
        const value = answer.headers[name.toLowerCase()];
        if (value === undefined) {
          if (required === true) violations.push({ path, message: `${name} header is missing`, expected: `a ${name} header`, actual: "absent" });
        } else if (schema !== undefined) {
          // A Retry-After that is an HTTP date where the contract says whole seconds, say.
          for (const violation of checkValue(ajv, cache, schema as Schema, headerValue(schema as Schema, value))) {
            violations.push({ ...violation, path, message: `${name} header ${violation.message}`, actual: show(value) });
          }
        }
      }
      const contentType = (answer.headers["content-type"] ?? "").split(";")[0]?.trim() ?? "";
      const media = response.content?.[contentType];
      if (!media) {
        violations.push({
          path: "/headers/content-type",
          message: `content type ${contentType || "(none)"} is not in the contract for ${answer.status}`,
          expected: Object.keys(response.content ?? {}).join(", "),
          actual: contentType || "absent",
        });
        return violations;
      }
      let body: unknown;
      try {
        body = JSON.parse(answer.body);
      } catch {
        violations.push({ path: "/body", message: "the body is not valid JSON", expected: "JSON", actual: show(answer.body) });
        return violations;
      }
      return [...violations, ...checkValue(ajv, cache, media.schema as Schema, body).map(inBody)];
    },
  };
}
