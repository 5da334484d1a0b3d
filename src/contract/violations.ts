// The one translator of ajv's errors into violations: each error's keyword, params, schemaPath and
// schema read into the facts of a Violation (never ajv's English), and a oneOf's branches weighed
// once here for every caller, so that a value is told only what breaks the branch it was meant for.

import type { ErrorObject } from "ajv";
import { valueAt } from "../domain/json.js";
import type { Violation } from "../domain/violation.js";

/** The keys the object schema holding an `additionalProperties` (named by an error's `schemaPath`) takes. */
export type KnownKeys = (schemaPath: string) => readonly string[] | undefined;

type SchemaNode = Record<string, unknown>;

/** Keywords whose error only says that errors below them happened; those say what is wrong. */
const WRAPPERS = new Set(["anyOf", "oneOf", "propertyNames", "if"]);
const COMPOSITES = new Set(["anyOf", "oneOf"]);

/** ajv's comparison of each bound, as the contract's words quote it. */
const COMPARISONS: Readonly<Record<string, string>> = { minimum: ">=", maximum: "<=", exclusiveMinimum: ">", exclusiveMaximum: "<" };

/**
 * The contract's own words for a violation, as ajv's templates put them (`must match format
 * "email"`, `must be >= 1`): what `check`, `proxy` and a broken response quote, made from the facts.
 */
function contractWords(keyword: string, params: Readonly<Record<string, unknown>>, facts: Violation): string {
  const limit = String(facts.limit);
  switch (keyword) {
    case "required":
      return `must have required property '${String(params.missingProperty)}'`;
    case "additionalProperties":
      return "must NOT have additional properties";
    case "unevaluatedProperties":
      return "must NOT have unevaluated properties";
    case "type":
    case "oneOf":
    case "anyOf":
      if (facts.types !== undefined) return `must be ${facts.types.join(",")}`;
      return keyword === "oneOf" ? "must match exactly one schema in oneOf" : "must match a schema in anyOf";
    case "format":
      return `must match format "${String(facts.format)}"`;
    case "pattern":
      return `must match pattern "${String(facts.pattern)}"`;
    case "enum":
      return "must be equal to one of the allowed values";
    case "const":
      return "must be equal to constant";
    case "minimum":
    case "maximum":
    case "exclusiveMinimum":
    case "exclusiveMaximum":
      return `must be ${COMPARISONS[keyword] ?? ""} ${limit}`;
    case "multipleOf":
      return `must be multiple of ${limit}`;
    case "minLength":
    case "maxLength":
      return `must NOT have ${keyword === "maxLength" ? "more" : "fewer"} than ${limit} characters`;
    case "minItems":
    case "maxItems":
      return `must NOT have ${keyword === "maxItems" ? "more" : "fewer"} than ${limit} items`;
    case "minProperties":
    case "maxProperties":
      return `must NOT have ${keyword === "maxProperties" ? "more" : "fewer"} than ${limit} properties`;
    case "uniqueItems":
      return `must NOT have duplicate items (items ## ${String(params.j)} and ${String(params.i)} are identical)`;
    case "not":
      return "must NOT be valid";
    case "if":
      return `must match "${String(params.failingKeyword)}" schema`;
    case "propertyNames":
      return "property name must be valid";
    case "false schema":
      return "boolean schema is false";
    default:
      return `must pass "${keyword}" keyword validation`;
  }
}

const LIMIT_PARAMS = ["limit", "multipleOf"] as const;

/** One error's facts, its key (missing or unknown) named in the path, as express-openapi-validator named it. */
function violationOf(error: ErrorObject, root: string, keysOf: KnownKeys | undefined): Violation {
  const params = error.params as Record<string, unknown>;
  const { keyword, schemaPath } = error;
  const parent = error.parentSchema;
  const key = (params.missingProperty ?? params.additionalProperty ?? params.unevaluatedProperty) as string | undefined;
  const facts: Violation = { path: `${root}${error.instancePath}${key === undefined ? "" : `/${key}`}`, message: "", keyword, schemaPath };
  if (keyword === "additionalProperties") {
    const known = keysOf?.(schemaPath) ?? (parent?.properties === undefined ? undefined : Object.keys(parent.properties as SchemaNode));
    if (known !== undefined) facts.known = known;
  } else if (keyword === "enum" && Array.isArray(params.allowedValues)) {
    facts.allowed = params.allowedValues as unknown[];
    facts.known = facts.allowed.map((value) => [value].join(""));
  } else if (keyword === "const") {
    facts.allowed = [params.allowedValue];
  } else if (keyword === "type") {
    facts.types = [params.type].flat().map(String);
  } else if (keyword === "format") {
    facts.format = String(params.format);
  } else if (keyword === "pattern") {
    facts.pattern = String(params.pattern);
  }
  for (const name of LIMIT_PARAMS) if (typeof params[name] === "number") facts.limit = params[name];
  if (error.propertyName !== undefined) facts.badKey = error.propertyName;
  if (typeof parent?.description === "string") facts.description = parent.description;
  const itemTitle = (parent?.items as SchemaNode | undefined)?.title;
  if (typeof itemTitle === "string") facts.itemTitle = itemTitle;
  facts.message = contractWords(keyword, params, facts);
  return facts;
}

type Kind = "null" | "boolean" | "number" | "string" | "array" | "object";

export function kindOf(value: unknown): Kind {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  const type = typeof value;
  return type === "boolean" || type === "number" || type === "string" ? type : "object";
}

/** The `type` of a schema as a list, or undefined when it has none. */
function typesOf(schema: SchemaNode): string[] | undefined {
  const { type } = schema;
  if (typeof type === "string") return [type];
  return Array.isArray(type) ? type.map(String) : undefined;
}

/** The kinds of value a schema can take, or undefined when it does not say (any kind may fit). */
export function kindsOf(schema: SchemaNode): Kind[] | undefined {
  const types = typesOf(schema);
  if (types !== undefined) return types.map((name) => (name === "integer" ? "number" : (name as Kind)));
  const values = Array.isArray(schema.enum) ? (schema.enum as unknown[]) : "const" in schema ? [schema.const] : undefined;
  return values?.map(kindOf);
}

/** One branch of a oneOf or anyOf as the choice weighs it: whether the value is of a type it takes, and where in the value it breaks (ajv's instancePath: a missing or unknown key's object). */
export interface Branch {
  fits: boolean;
  pointers: readonly string[];
}

/**
 * The branch a value was meant for, the one rule for every caller: of the branches of the value's
 * own type (a mapping was meant to be the rate limit, never null), the one it breaks least, then
 * the one it got furthest into; undefined when no branch of its type fails.
 */
export function meantBranch<B extends Branch>(branches: readonly B[]): B | undefined {
  const depth = (branch: Branch): number => Math.max(0, ...branch.pointers.map((pointer) => pointer.split("/").length));
  return branches.filter((branch) => branch.fits && branch.pointers.length > 0).sort((a, b) => a.pointers.length - b.pointers.length || depth(b) - depth(a))[0];
}

const isUnder = (error: ErrorObject, wrapper: ErrorObject): boolean => error !== wrapper && error.schemaPath.startsWith(`${wrapper.schemaPath}/`);

/**
 * The errors of the branch `value` was meant for (`meantBranch`), told by the branches' schemas
 * (kept by ajv for sendmock's own inputs), or the types of all when it is of no branch's type.
 */
function branchChosen(composite: ErrorObject, inner: readonly ErrorObject[], value: unknown): ErrorObject[] | { types: string[] } {
  const schemas = composite.schema as SchemaNode[];
  const kind = kindOf(valueAt(value, composite.instancePath));
  const branches = schemas.map((schema, index) => {
    const errors = inner.filter((error) => error.schemaPath.startsWith(`${composite.schemaPath}/${index}/`));
    return { errors, fits: kindsOf(schema)?.includes(kind) ?? true, pointers: errors.map((error) => error.instancePath) };
  });
  const meant = meantBranch(branches);
  if (meant !== undefined) return meant.errors;
  return { types: [...new Set(schemas.flatMap((schema) => typesOf(schema) ?? []))] };
}

/** A violation of the types a value may be, merged from the branches it fits none of. */
function typesViolation(composite: ErrorObject, keyword: string, types: readonly string[], root: string): Violation {
  const merged: Violation = { path: `${root}${composite.instancePath}`, message: "", keyword, schemaPath: composite.schemaPath, types };
  merged.message = contractWords(keyword, {}, merged);
  return merged;
}

const isAtOrBelow = (pointer: string, ancestor: string): boolean => pointer === ancestor || pointer.startsWith(`${ancestor}/`);

/**
 * The branches told apart by the value alone, where ajv kept no schema (the APIs' checks) and a
 * branch's errors may sit in the component it refers to: the `type` failures at a oneOf's value
 * are the branches it was not meant for, unless nothing else failed there (then no branch is of
 * its type, and they merge into one: `must be object,null`).
 */
function byValueAlone(errors: readonly ErrorObject[], root: string, keysOf: KnownKeys | undefined): Violation[] {
  const composites = errors.filter((error) => COMPOSITES.has(error.keyword)).map((error) => error.instancePath);
  const violations: Violation[] = [];
  const merged = new Map<string, Violation>();
  for (const error of errors) {
    if (COMPOSITES.has(error.keyword)) continue;
    if (error.keyword === "type" && composites.includes(error.instancePath)) {
      const meant = errors.some(
        (other) =>
          !COMPOSITES.has(other.keyword) &&
          isAtOrBelow(other.instancePath, error.instancePath) &&
          (other.instancePath !== error.instancePath || other.keyword !== "type"),
      );
      if (meant) continue;
      const types = [error.params.type].flat().map(String);
      const before = merged.get(error.instancePath);
      if (before === undefined) {
        const violation = typesViolation(error, "type", types, root);
        merged.set(error.instancePath, violation);
        violations.push(violation);
      } else {
        before.types = [...(before.types ?? []), ...types];
        before.message = contractWords("type", {}, before);
      }
      continue;
    }
    violations.push(violationOf(error, root, keysOf));
  }
  return violations;
}

/** The errors that say what is wrong, each wrapper replaced by what its inner errors say (one branch's, for a oneOf). */
function withoutBranchNoise(errors: readonly ErrorObject[], value: unknown, root: string, keysOf: KnownKeys | undefined): Violation[] {
  if (errors.some((error) => COMPOSITES.has(error.keyword) && !Array.isArray(error.schema))) return byValueAlone(errors, root, keysOf);
  const wrappers = errors.filter((error) => WRAPPERS.has(error.keyword) && errors.some((other) => isUnder(other, error)));
  const outermost = wrappers.filter((wrapper) => !wrappers.some((other) => isUnder(wrapper, other)));
  const violations: Violation[] = [];
  for (const error of errors) {
    if (wrappers.some((wrapper) => isUnder(error, wrapper))) continue;
    if (!outermost.includes(error)) {
      violations.push(violationOf(error, root, keysOf));
      continue;
    }
    const inner = errors.filter((other) => isUnder(other, error));
    const chosen = COMPOSITES.has(error.keyword) ? branchChosen(error, inner, value) : inner;
    violations.push(...(Array.isArray(chosen) ? withoutBranchNoise(chosen, value, root, keysOf) : [typesViolation(error, error.keyword, chosen.types, root)]));
  }
  return violations;
}

/**
 * ajv's errors for `value` as violations, pointers from `root` (where the value sits in the
 * exchange: `/body`, `/response`); `keysOf` finds the keys an unknown key's object takes where ajv
 * did not keep the schema. Every caller words these facts its own way.
 */
export function violationsFrom(errors: readonly ErrorObject[], value: unknown, root = "", keysOf?: KnownKeys): Violation[] {
  // No wrapper failed (every send request: send.yaml's request has none): one violation per error.
  if (!errors.some((error) => WRAPPERS.has(error.keyword))) return errors.map((error) => violationOf(error, root, keysOf));
  return withoutBranchNoise(errors, value, root, keysOf);
}
