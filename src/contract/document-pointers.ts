// Where an OpenAPI document keeps what a check needs, as JSON pointers into it: each operation, its
// parameters' schemas, its JSON request body's and each response's (a local `$ref` followed).

import type { OpenAPIV3_1 } from "openapi-types";
import { valueAt } from "../domain/json.js";

export const HTTP_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

/** A key as a JSON pointer writes it: `/send` -> `~1send`. */
const pointerToken = (key: string): string => key.replaceAll("~", "~0").replaceAll("/", "~1");

/** What a pointer (`#/...`) points at in `document`. */
const at = (document: OpenAPIV3_1.Document, pointer: string): unknown => valueAt(document, pointer.slice(1));

/** Where `listed` is written: the target of its local `$ref`, or `pointer` itself. */
const followed = (listed: object, pointer: string): string =>
  "$ref" in listed && typeof listed.$ref === "string" && listed.$ref.startsWith("#/") ? listed.$ref : pointer;

/** Where the value at `pointer` is written, each local `$ref` met there followed (one to another too). */
export function resolvedPointer(document: OpenAPIV3_1.Document, pointer: string): string {
  const seen = new Set<string>();
  let current = pointer;
  while (!seen.has(current)) {
    seen.add(current);
    const node = at(document, current);
    if (node === null || typeof node !== "object") return current;
    current = followed(node, current);
  }
  return current;
}

/** `#/components/schemas/<name>` */
export const componentPointer = (schemaName: string): string => `#/components/schemas/${schemaName}`;

/** `#/paths/~1send/post`: the pointer of an operation. */
export const operationPointer = (path: string, method: string): string => `#/paths/${pointerToken(path)}/${method}`;

/** The operations of a document, with their pointers. */
export function operationsOf(document: OpenAPIV3_1.Document): { path: string; method: HttpMethod; pointer: string }[] {
  return Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
    HTTP_METHODS.filter((method) => item?.[method] !== undefined).map((method) => ({ path, method, pointer: operationPointer(path, method) })),
  );
}

/** A parameter of an operation: where it is, and the pointer of its schema. */
export interface ParameterSchema {
  name: string;
  in: string;
  required: boolean;
  allowEmptyValue: boolean;
  pointer: string;
}

/** The parameters of the operation at `operation` (its path's, then its own, which win by name and place). */
export function parametersOf(document: OpenAPIV3_1.Document, operation: string): ParameterSchema[] {
  const pathItem = operation.slice(0, operation.lastIndexOf("/"));
  const byPlace = new Map<string, ParameterSchema>();
  for (const owner of [pathItem, operation]) {
    const listed = (at(document, `${owner}/parameters`) ?? []) as object[];
    listed.forEach((listedParameter, index) => {
      const where = followed(listedParameter, `${owner}/parameters/${index}`);
      const parameter = at(document, where) as OpenAPIV3_1.ParameterObject;
      byPlace.set(`${parameter.in} ${parameter.name}`, {
        name: parameter.name,
        in: parameter.in,
        required: parameter.required === true,
        allowEmptyValue: parameter.allowEmptyValue === true,
        pointer: `${where}/schema`,
      });
    });
  }
  return [...byPlace.values()];
}

/** The JSON body schema of a request body or response written at `where`, if it has one. */
function jsonSchemaAt(document: OpenAPIV3_1.Document, where: string): string | undefined {
  const schema = `${where}/content/application~1json/schema`;
  return at(document, schema) === undefined ? undefined : schema;
}

/** Where an operation's JSON request body schema is (undefined when it takes no JSON body), and whether the body is required. */
export function requestBodyOf(document: OpenAPIV3_1.Document, operation: string): { pointer: string | undefined; required: boolean } | undefined {
  const listed = at(document, `${operation}/requestBody`) as object | undefined;
  if (listed === undefined) return undefined;
  const where = followed(listed, `${operation}/requestBody`);
  return { pointer: jsonSchemaAt(document, where), required: (at(document, where) as OpenAPIV3_1.RequestBodyObject).required !== false };
}

/** What a documented response may carry: a JSON body with its schema, bodies of other types only, or no body. */
export type ResponseBody = { kind: "json"; pointer: string } | { kind: "not json" } | { kind: "none" };

/** The body of each response of an operation, by response key (`200`, `4XX`, `default`). */
export function responseBodiesOf(document: OpenAPIV3_1.Document, operation: string): Map<string, ResponseBody> {
  const responses = (at(document, `${operation}/responses`) ?? {}) as Record<string, object>;
  const bodies = new Map<string, ResponseBody>();
  for (const [status, listed] of Object.entries(responses)) {
    const where = followed(listed, `${operation}/responses/${pointerToken(status)}`);
    const pointer = jsonSchemaAt(document, where);
    const content = (at(document, where) as OpenAPIV3_1.ResponseObject | undefined)?.content ?? {};
    bodies.set(status, pointer !== undefined ? { kind: "json", pointer } : Object.keys(content).length > 0 ? { kind: "not json" } : { kind: "none" });
  }
  return bodies;
}

/** A header a response documents: whether it must be there, and the pointer of its schema, if it has one. */
export interface HeaderSchema {
  name: string;
  required: boolean;
  pointer: string | undefined;
}

/** A documented response: its headers, and the schema pointer of each media type it may carry (undefined for one without a schema). */
export interface DocumentedResponse {
  headers: HeaderSchema[];
  media: Map<string, string | undefined>;
}

/** Each response of an operation, by response key (`200`, `4XX`, `default`), for judging a whole response. */
export function responsesOf(document: OpenAPIV3_1.Document, operation: string): Map<string, DocumentedResponse> {
  const responses = (at(document, `${operation}/responses`) ?? {}) as Record<string, object>;
  const documented = new Map<string, DocumentedResponse>();
  for (const status of Object.keys(responses)) {
    const where = resolvedPointer(document, `${operation}/responses/${pointerToken(status)}`);
    const response = (at(document, where) ?? {}) as OpenAPIV3_1.ResponseObject;
    const headers = Object.keys(response.headers ?? {}).map((name) => {
      const place = resolvedPointer(document, `${where}/headers/${pointerToken(name)}`);
      const header = (at(document, place) ?? {}) as OpenAPIV3_1.HeaderObject;
      return { name, required: header.required === true, pointer: header.schema === undefined ? undefined : `${place}/schema` };
    });
    const media = new Map(
      Object.entries(response.content ?? {}).map(([type, content]) => [
        type,
        content.schema === undefined ? undefined : `${where}/content/${pointerToken(type)}/schema`,
      ]),
    );
    documented.set(status, { headers, media });
  }
  return documented;
}

/** The schema at `pointer`, its own local `$ref` followed once. */
export function schemaAt(document: OpenAPIV3_1.Document, pointer: string): Record<string, unknown> | undefined {
  const schema = at(document, pointer) as Record<string, unknown> | undefined;
  return schema === undefined ? undefined : (at(document, followed(schema, pointer)) as Record<string, unknown> | undefined);
}

/**
 * The schema that `path` (`/properties/match`) leads to from the schema at `start`, following
 * each local `$ref` met on the way: where ajv's `schemaPath` of an error points, as it writes it
 * from the root of the schema it checked.
 */
export function schemaAlong(document: OpenAPIV3_1.Document, start: string, path: string): Record<string, unknown> | undefined {
  let pointer = start;
  for (const token of path.split("/").slice(1)) {
    const node = at(document, pointer);
    if (node === null || typeof node !== "object") return undefined;
    pointer = `${followed(node, pointer)}/${token}`;
  }
  return schemaAt(document, pointer);
}
