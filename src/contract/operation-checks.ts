// The operations of a contract checked by the engine's validators: a request's parameters, media
// type and body as express-openapi-validator checked them, each response written as JSON, and a whole
// response off the wire (status, headers, body) as `check`, `proxy` and the `respond` fault judge it.

import type { HttpResponse } from "../response.js";
import type { ValidateFunction } from "ajv";
import contentType from "content-type";
import type { ExplainedViolation, Violation } from "../domain/violation.js";
import {
  operationsOf,
  parametersOf,
  requestBodyOf,
  responseBodiesOf,
  responsesOf,
  schemaAt,
  type DocumentedResponse,
  type HttpMethod,
  type ParameterSchema,
} from "./document-pointers.js";
import { closestViolations, knownKeysIn, validatorAt } from "./engine.js";
import { show } from "./explained.js";
import type { Contract } from "./load.js";
import { ContractRefusal } from "./refusal.js";
import { violationsFrom, type KnownKeys } from "./violations.js";

/** What a request brings that the contract judges. */
export interface RequestParts {
  /** The parsed query: a value is a string, or a list of strings for a repeated name. */
  query: Readonly<Record<string, unknown>>;
  /** The path's parameters, decoded (`{id}` of `/_mock/messages/{id}`). */
  params: Readonly<Record<string, string>>;
  /** The headers, by lowercase name (as Node gives them). */
  headers: Readonly<Record<string, string | string[] | undefined>>;
  contentType: string | undefined;
  /** The parsed JSON body, if any. */
  body: unknown;
}

export interface OperationChecks {
  /** Why the contract refuses a request, or undefined when it takes it. */
  request(parts: RequestParts): ContractRefusal | undefined;
  /**
   * A query the contract took, typed as it says: a number or boolean parameter as one, and an
   * absent parameter with a `default` set to it (what eov left in `req.query`, which the routes
   * read). Undefined for an operation without query parameters, whose query is always empty.
   */
  typedQuery: ((query: Readonly<Record<string, unknown>>) => Record<string, unknown>) | undefined;
  /** What in a response of `status` with the JSON `body` breaks the contract; empty when it fits. */
  response(status: number, body: unknown): Violation[];
  /** Whether the operation lists this exact status (not only a `4XX` range): 401 for a missing key, 405 for another method. */
  documentsStatus(status: number): boolean;
  /**
   * What in a whole response, as it went over the wire, breaks the contract: `/status` for the HTTP
   * status, `/headers/<name>` for a header, and a pointer under `/body` (`/body/error/code`) for
   * the body. How `check`, `proxy` and the `respond` fault judge a response they did not write.
   */
  exchangeResponse(response: HttpResponse): ExplainedViolation[];
}

function failures(validate: ValidateFunction, value: unknown, root: string, keysOf?: KnownKeys): Violation[] {
  return validate(value) ? [] : violationsFrom(validate.errors ?? [], value, root, keysOf);
}

const badRequest = (issues: Violation[], unlisted = 0): ContractRefusal =>
  new ContractRefusal("bad_request", "The request breaks the contract", issues, unlisted);

/** Where eov put each parameter in the request it validated. */
const PLACE: Readonly<Record<string, string>> = { query: "query", path: "params", header: "headers" };

interface ParameterCheck extends ParameterSchema {
  validate: ValidateFunction;
  /** The schema's `type` and `default`, its own `$ref` followed. */
  type: unknown;
  default: unknown;
}

/** The parameters of an operation, its query's also by name. */
interface ParameterChecks {
  all: readonly ParameterCheck[];
  inQuery: ReadonlyMap<string, ParameterCheck>;
}

function typedQuery(inQuery: ReadonlyMap<string, ParameterCheck>, query: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const typed: Record<string, unknown> = { ...query };
  for (const parameter of inQuery.values()) {
    const value = typed[parameter.name];
    if (value === undefined) {
      if (parameter.default !== undefined) typed[parameter.name] = parameter.default;
    } else if (typeof value === "string" && (parameter.type === "integer" || parameter.type === "number")) {
      typed[parameter.name] = Number(value);
    } else if (typeof value === "string" && parameter.type === "boolean") {
      typed[parameter.name] = value === "true";
    }
  }
  return typed;
}

/** A parameter's value in the request, or undefined when it is absent (a header's name is matched in lowercase). */
function valueOf(parameter: ParameterSchema, parts: RequestParts): unknown {
  const values: Readonly<Record<string, unknown>> =
    parameter.in === "query" ? parts.query : parameter.in === "path" ? parts.params : parameter.in === "header" ? parts.headers : {};
  const name = parameter.in === "header" ? parameter.name.toLowerCase() : parameter.name;
  return Object.hasOwn(values, name) ? values[name] : undefined;
}

/** The keyword of a query parameter the operation does not take; `known` lists those it does. */
export const UNKNOWN_PARAMETER = "unknownParameter";
/** The keyword of a query parameter given empty where the operation does not allow it. */
export const EMPTY_PARAMETER = "emptyParameter";

/**
 * A query names only documented parameters, none of them empty unless allowed (eov refused the
 * first that did not, alone); then each value is checked by its schema, coerced as eov did.
 */
function parameterRefusal(parameters: ParameterChecks, parts: RequestParts): ContractRefusal | undefined {
  for (const [name, value] of Object.entries(parts.query)) {
    const parameter = parameters.inQuery.get(name);
    if (!parameter) {
      const known = [...parameters.inQuery.keys()];
      return badRequest([{ path: `/query/${name}`, keyword: UNKNOWN_PARAMETER, message: `Unknown query parameter '${name}'`, known }]);
    }
    if (value === "" && !parameter.allowEmptyValue)
      return badRequest([{ path: `/query/${name}`, keyword: EMPTY_PARAMETER, message: `Empty value found for query parameter '${name}'` }]);
  }
  const issues: Violation[] = [];
  for (const parameter of parameters.all) {
    const value = valueOf(parameter, parts);
    const path = `/${PLACE[parameter.in] ?? parameter.in}/${parameter.name}`;
    if (value === undefined) {
      if (parameter.required) issues.push({ path, keyword: "required", message: `must have required property '${parameter.name}'` });
      continue;
    }
    issues.push(...failures(parameter.validate, value, path));
  }
  return issues.length > 0 ? badRequest(issues) : undefined;
}

interface BodyCheck {
  validate: ValidateFunction | undefined;
  knownKeys: KnownKeys | undefined;
  /** The keys the body's schema takes when it refuses every other key, and says nothing else of them; undefined otherwise. */
  closedKeys: ReadonlySet<string> | undefined;
  /** As eov read it: only a body whose schema lists required keys is itself required. */
  required: boolean;
  /** Whether a request with no Content-Type may leave the body out (`required: false` in the document). */
  optional: boolean;
}

/**
 * Past this many keys a closed body schema does not take, the rest are counted, not checked: each
 * is one more "not a known field" after those already listed, and a refusal names the first few
 * only. A send of 60,000 unknown keys (857 KB) took ~45 ms of CPU, ~26 of them to check and word
 * its 60,000 violations. Four at a time held a small send 121-140 ms (p99, the bench's abuse case
 * `many-keys`), 90-97 ms with the pipeline's yield before the parse alone, and 65-70 ms with the
 * keys counted so, at about half the peak RSS (409 -> 200-234 MB).
 */
const UNKNOWN_KEYS_CHECKED = 1000;

/** Keywords that would judge a closed object's unknown keys, or its key count, other than "not a known field". */
const KEY_KEYWORDS = [
  "patternProperties",
  "propertyNames",
  "unevaluatedProperties",
  "minProperties",
  "maxProperties",
  "dependentRequired",
  "dependentSchemas",
  "dependencies",
  "allOf",
  "anyOf",
  "oneOf",
  "not",
  "if",
];

/** The keys a schema takes when it refuses every other one with one violation each (`additionalProperties: false`), else undefined. */
function closedKeysOf(schema: Record<string, unknown> | undefined): ReadonlySet<string> | undefined {
  if (schema?.additionalProperties !== false || KEY_KEYWORDS.some((keyword) => keyword in schema)) return undefined;
  const { properties, required } = schema;
  // A required key the properties leave out is refused as unknown too, and must still be found missing.
  const named = [
    ...(typeof properties === "object" && properties !== null ? Object.keys(properties) : []),
    ...(Array.isArray(required) ? required.map(String) : []),
  ];
  return new Set(named);
}

/** `body` with only its first UNKNOWN_KEYS_CHECKED unknown keys, and how many it left out; the same body when it has no more. */
function withFirstUnknownKeys(body: unknown, closedKeys: ReadonlySet<string> | undefined): { checked: unknown; unlisted: number } {
  if (closedKeys === undefined || typeof body !== "object" || body === null || Array.isArray(body)) return { checked: body, unlisted: 0 };
  const whole = body as Record<string, unknown>;
  const keys = Object.keys(whole);
  // A send has a handful of keys: only a body of more keys than the limit can have too many unknown
  // ones. Counting them is what every send pays here: 8 ns for a welcome send's (node, 5M runs).
  if (keys.length <= UNKNOWN_KEYS_CHECKED) return { checked: body, unlisted: 0 };
  const kept: Record<string, unknown> = {};
  let unknown = 0;
  for (const key of keys) {
    if (!closedKeys.has(key)) {
      unknown += 1;
      if (unknown > UNKNOWN_KEYS_CHECKED) continue;
    }
    // Defined as data, so that a key `__proto__` stays a key and sets no prototype.
    Object.defineProperty(kept, key, { value: whole[key], enumerable: true, writable: true, configurable: true });
  }
  return unknown > UNKNOWN_KEYS_CHECKED ? { checked: kept, unlisted: unknown - UNKNOWN_KEYS_CHECKED } : { checked: body, unlisted: 0 };
}

function bodyRefusal(body: BodyCheck, parts: RequestParts): ContractRefusal | undefined {
  let mediaType: string | undefined;
  try {
    mediaType = parts.contentType === undefined ? undefined : contentType.parse(parts.contentType).type;
  } catch {
    mediaType = parts.contentType;
  }
  if (mediaType === undefined) {
    return body.optional ? undefined : new ContractRefusal("unsupported_media_type", "media type not specified");
  }
  if (mediaType !== "application/json") return new ContractRefusal("unsupported_media_type", `unsupported media type ${mediaType}`);
  if (!body.validate) return undefined;
  if (parts.body === undefined) {
    return body.required ? badRequest([{ path: "/body", keyword: "required", message: "must have required property 'body'" }]) : undefined;
  }
  const { checked, unlisted } = withFirstUnknownKeys(parts.body, body.closedKeys);
  const issues = failures(body.validate, checked, "/body", body.knownKeys);
  return issues.length > 0 ? badRequest(issues, unlisted) : undefined;
}

/** The check of each documented response (`200`, `4XX`, `default`): its JSON schema's, or what its body may be. */
type ResponseCheck = ValidateFunction | "no body" | "not JSON";

/** The response key that covers a status: its own, its range's (`4XX`), else `default`. */
function responseKey(keys: { has(key: string): boolean }, status: number): string | undefined {
  const code = String(status);
  return [code, `${code[0] ?? ""}XX`, "default"].find((candidate) => keys.has(candidate));
}

function responseIssues(checks: ReadonlyMap<string, ResponseCheck>, status: number, body: unknown): Violation[] {
  const key = responseKey(checks, status);
  if (key === undefined) return [{ path: "/response", keyword: "", message: `no schema defined for status code '${status}' in the openapi spec` }];
  const check = checks.get(key);
  if (check === "no body") return body === undefined ? [] : [{ path: "/response", keyword: "", message: "response should NOT have a body" }];
  if (check === "not JSON" || check === undefined) return [];
  return failures(check, body, "/response");
}

/** A header's text as the value its schema describes: a number where it says integer or number. */
function headerValue(contract: Contract, pointer: string, text: string): unknown {
  const type = schemaAt(contract.document, pointer)?.type;
  return (type === "integer" || type === "number") && /^-?\d+(\.\d+)?$/.test(text.trim()) ? Number(text) : text;
}

function exchangeViolations(
  contract: Contract,
  operation: string,
  responses: ReadonlyMap<string, DocumentedResponse>,
  response: HttpResponse,
): ExplainedViolation[] {
  const key = responseKey(responses, response.status);
  const documented = key === undefined ? undefined : responses.get(key);
  if (!documented) {
    return [
      {
        path: "/status",
        message: `status ${response.status} is not documented for ${operation}`,
        expected: `one of ${[...responses.keys()].join(", ")}`,
        actual: String(response.status),
      },
    ];
  }
  const violations: ExplainedViolation[] = [];
  for (const { name, required, pointer } of documented.headers) {
    const path = `/headers/${name.toLowerCase()}`;
    const value = response.headers[name.toLowerCase()];
    if (value === undefined) {
      if (required) violations.push({ path, message: `${name} header is missing`, expected: `a ${name} header`, actual: "absent" });
    } else if (pointer !== undefined) {
      // A Retry-After that is an HTTP date where the contract says whole seconds, say.
      for (const violation of closestViolations(contract, pointer, headerValue(contract, pointer, value))) {
        violations.push({ ...violation, path, message: `${name} header ${violation.message}`, actual: show(value) });
      }
    }
  }
  const type = (response.headers["content-type"] ?? "").split(";")[0]?.trim() ?? "";
  if (!documented.media.has(type)) {
    violations.push({
      path: "/headers/content-type",
      message: `content type ${type || "(none)"} is not in the contract for ${response.status}`,
      expected: [...documented.media.keys()].join(", "),
      actual: type || "absent",
    });
    return violations;
  }
  let body: unknown;
  try {
    body = JSON.parse(response.body);
  } catch {
    violations.push({ path: "/body", message: "the body is not valid JSON", expected: "JSON", actual: show(response.body) });
    return violations;
  }
  const schema = documented.media.get(type);
  return schema === undefined ? violations : [...violations, ...closestViolations(contract, schema, body, "/body")];
}

function checksOf(contract: Contract, pointer: string, operation: string): OperationChecks {
  const { document } = contract;
  const all: ParameterCheck[] = parametersOf(document, pointer).map((parameter) => {
    const schema = schemaAt(document, parameter.pointer);
    return { ...parameter, validate: validatorAt(contract, parameter.pointer, "coercing"), type: schema?.type, default: schema?.default };
  });
  const parameters: ParameterChecks = {
    all,
    inQuery: new Map(all.filter((parameter) => parameter.in === "query").map((parameter) => [parameter.name, parameter])),
  };
  const requestBody = requestBodyOf(document, pointer);
  const bodySchema = requestBody?.pointer === undefined ? undefined : schemaAt(document, requestBody.pointer);
  const body: BodyCheck | undefined = requestBody && {
    validate: requestBody.pointer === undefined ? undefined : validatorAt(contract, requestBody.pointer),
    knownKeys: requestBody.pointer === undefined ? undefined : knownKeysIn(contract, requestBody.pointer),
    closedKeys: closedKeysOf(bodySchema),
    required: Array.isArray(bodySchema?.required) && bodySchema.required.length > 0,
    optional: !requestBody.required,
  };
  // Only check, proxy and the respond fault judge whole responses: read from the document at their first one.
  let responses: Map<string, DocumentedResponse> | undefined;
  const bodyChecks = new Map<string, ResponseCheck>(
    [...responseBodiesOf(document, pointer)].map(([key, response]) => [
      key,
      response.kind === "json" ? validatorAt(contract, response.pointer) : response.kind === "none" ? "no body" : "not JSON",
    ]),
  );
  return {
    request: (parts) => parameterRefusal(parameters, parts) ?? (body ? bodyRefusal(body, parts) : undefined),
    typedQuery: parameters.inQuery.size === 0 ? undefined : (query) => typedQuery(parameters.inQuery, query),
    response: (status, responseBody) => responseIssues(bodyChecks, status, responseBody),
    documentsStatus: (status) => bodyChecks.has(String(status)),
    exchangeResponse: (response) => exchangeViolations(contract, operation, (responses ??= responsesOf(document, pointer)), response),
  };
}

/** The checks of `method path` in `contract`, compiled (or loaded) now: no request compiles anything. */
export function operationChecks(contract: Contract, path: string, method: HttpMethod): OperationChecks {
  const found = operationsOf(contract.document).find((operation) => operation.path === path && operation.method === method);
  if (!found) throw new Error(`${contract.file} has no ${method.toUpperCase()} ${path}`);
  return checksOf(contract, found.pointer, `${method.toUpperCase()} ${path}`);
}

/** An operation found for a request, with the checks of it and the path's parameters. */
export interface MatchedOperation {
  checks: OperationChecks;
  params: Record<string, string>;
}

/** Finds the operation a request is for; undefined for a path or method the contract does not document. */
export type OperationFinder = (method: string, path: string) => MatchedOperation | undefined;

/**
 * Every operation of `contract`, checks compiled (or loaded) now. Paths match as express and eov
 * matched them: case-insensitive, a trailing slash allowed, each `{name}` one decoded segment.
 */
export function contractOperations(contract: Contract): OperationFinder {
  const routes = operationsOf(contract.document).map(({ path, method, pointer }) => {
    const names = [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1] ?? "");
    const pattern = path
      .split(/\{[^}]+\}/)
      .map((literal) => literal.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
      .join("([^/]+)");
    return {
      method: method.toUpperCase(),
      regex: new RegExp(`^${pattern.replace(/\/$/, "")}\\/?$`, "i"),
      names,
      checks: checksOf(contract, pointer, `${method.toUpperCase()} ${path}`),
    };
  });
  return (method, path) => {
    for (const route of routes) {
      if (route.method !== method) continue;
      const match = route.regex.exec(path);
      if (!match) continue;
      try {
        return { checks: route.checks, params: Object.fromEntries(route.names.map((name, index) => [name, decodeURIComponent(match[index + 1] ?? "")])) };
      } catch {
        // An undecodable segment: express refuses the path itself.
        return undefined;
      }
    }
    return undefined;
  };
}
