// sendmock's own inputs (config, options, fault rules) checked by the engine's validators of their
// schemas, and the failure that explains them best told in words about the key.

import type { ErrorObject, ValidateFunction } from "ajv";
import { valueAt } from "../domain/json.js";
import { closestKey, meantValue } from "../domain/suggestion.js";
import { inputCompiledAtRunTime, inputValidator } from "./engine.js";

/** Keys and indexes from the root of a value to one part of it: `["rate_limit", "per_seconds"]`, `["api_keys", 0]`. */
export type KeyPath = readonly (string | number)[];

/**
 * What is wrong with a value, with the keys it involves kept apart from the words, so each
 * caller can spell them as its user wrote them (snake_case in a file, camelCase in options).
 */
export type SchemaProblem =
  /** `rate_limit.requests must be at least 1`: `problem` follows the name of the value at `at`. */
  | { kind: "value"; at: KeyPath; problem: string }
  /** `rate_limit: unknown key per_second (did you mean per_seconds?)` */
  | { kind: "unknown key"; at: KeyPath; key: string; suggestion: string | undefined }
  /** `status_codes: teapot is not an error code (one of ...)`: a key that is not allowed as a key. */
  | { kind: "bad key"; at: KeyPath; key: string; problem: string };

/** Spells one key of a path; `parent` is the path of the mapping that holds it. */
export type KeyNaming = (key: string, parent: KeyPath) => string;

/** `rate_limit.per_seconds`, `api_keys[0]`, `faults[2].match.to`: a path the way a person writes it. */
export function pathName(at: KeyPath, naming: KeyNaming): string {
  return at.reduce<string>(
    (name, key, index) => (typeof key === "number" ? `${name}[${key}]` : `${name === "" ? "" : `${name}.`}${naming(key, at.slice(0, index))}`),
    "",
  );
}

/** The problem as one sentence; `whole` names the value itself when the problem is about all of it. */
export function describeProblem(problem: SchemaProblem, naming: KeyNaming, whole: string): string {
  const name = pathName(problem.at, naming);
  const within = (text: string): string => (name === "" ? text : `${name}: ${text}`);
  switch (problem.kind) {
    case "value":
      return `${name === "" ? whole : name} ${problem.problem}`;
    case "unknown key": {
      const suggestion = problem.suggestion === undefined ? "" : ` (did you mean ${naming(problem.suggestion, problem.at)}?)`;
      return within(`unknown key ${naming(problem.key, problem.at)}${suggestion}`);
    }
    case "bad key":
      return within(`${problem.key} ${problem.problem}`);
  }
}

export type SchemaCheck = (value: unknown) => SchemaProblem | undefined;

/** The check of the validator `validator` gives (one compiled for the `input` checking of contract/engine.ts). */
export function checkWith(validator: () => ValidateFunction): SchemaCheck {
  let validate: ValidateFunction | undefined;
  return (value) => {
    // Loaded (or compiled) at the first value: a mock that never adds a fault rule never compiles its check.
    validate ??= validator();
    if (validate(value)) return undefined;
    return problemOf(validate.errors ?? [], value);
  };
}

/** A check of `schema`: returns the problem that explains the failure best, or undefined when the value fits. */
export const schemaCheck = (schema: object): SchemaCheck => checkWith(() => inputValidator(schema));

/** The same check, compiled when first used even where the build generated it: what a tree never built runs. */
export const schemaCheckCompiledAtRunTime = (schema: object): SchemaCheck => checkWith(() => inputCompiledAtRunTime(schema));

type SchemaNode = Record<string, unknown>;

/** Keywords whose error only says that errors below them happened; those say what is wrong. */
const WRAPPERS = new Set(["anyOf", "oneOf", "propertyNames", "if", "not"]);
/** An unknown key usually explains the required key it was meant to be, so it is told first. */
const PRIORITY = ["additionalProperties", "required"];

function isUnder(error: ErrorObject, wrapper: ErrorObject): boolean {
  return error !== wrapper && error.schemaPath.startsWith(`${wrapper.schemaPath}/`);
}

/** A `type: string` beside an `enum` (admin.yaml's FaultKind): the enum's error says more, the values it takes. */
function isSaidByEnum(error: ErrorObject, errors: readonly ErrorObject[]): boolean {
  return error.keyword === "type" && errors.some((other) => other.keyword === "enum" && other.schemaPath === error.schemaPath.replace(/type$/, "enum"));
}

function problemOf(errors: readonly ErrorObject[], root: unknown): SchemaProblem {
  const wrappers = errors.filter((error) => WRAPPERS.has(error.keyword));
  const outermost = errors.filter((error) => !wrappers.some((wrapper) => isUnder(error, wrapper)) && !isSaidByEnum(error, errors));
  const rank = (error: ErrorObject): number => {
    const index = PRIORITY.indexOf(error.keyword);
    return index === -1 ? PRIORITY.length : index;
  };
  const [first] = [...outermost].sort((a, b) => rank(a) - rank(b));
  if (first === undefined) return { kind: "value", at: [], problem: "is invalid" };
  if (!WRAPPERS.has(first.keyword)) return problemFrom(first, root);
  const inner = errors.filter((error) => isUnder(error, first));
  if (first.keyword !== "anyOf" && first.keyword !== "oneOf") return inner.length > 0 ? problemOf(inner, root) : problemFrom(first, root);
  return branchProblem(first, inner, root);
}

/**
 * `null or a rate limit` failed: the problem is the one of the branch the value was meant for,
 * the branch of its own type (a mapping was meant to be the rate limit, never null). A value
 * of a type no branch takes is told which types are taken.
 */
function branchProblem(composite: ErrorObject, inner: readonly ErrorObject[], root: unknown): SchemaProblem {
  const branches = Array.isArray(composite.schema) ? (composite.schema as SchemaNode[]) : [];
  // A oneOf that more than one branch took has no errors below it.
  if (inner.length === 0) return problemFrom(composite, root);
  const value = valueAt(root, composite.instancePath);
  const fitting = branches.map((branch, index) => ({ branch, index })).filter(({ branch }) => kindsOf(branch)?.includes(kindOf(value)) ?? true);
  const errorsOf = (index: number) => inner.filter((error) => error.schemaPath.startsWith(`${composite.schemaPath}/${index}/`));
  const depth = (index: number) => Math.max(0, ...errorsOf(index).map((error) => error.instancePath.length));
  // Of several branches of the value's type, the one it got furthest into.
  const meant = fitting.sort((a, b) => depth(b.index) - depth(a.index))[0];
  if (meant !== undefined && errorsOf(meant.index).length > 0) return problemOf(errorsOf(meant.index), root);
  // null stands for "not set": naming it would read as the schema artefact `must be null`.
  const taken = branches.flatMap((branch) => typesOf(branch) ?? []);
  const words = [...new Set(taken.filter((type) => type !== "null").map((type) => KIND_WORDS[type as Kind | "integer"]))];
  return { kind: "value", at: keyPath(composite.instancePath), problem: words.length > 0 ? `must be ${alternatives(words)}` : "is invalid" };
}

type Kind = "null" | "boolean" | "number" | "string" | "array" | "object";

const KIND_WORDS: Record<Kind | "integer", string> = {
  null: "null",
  boolean: "true or false",
  number: "a number",
  integer: "a whole number",
  string: "a string",
  array: "a list",
  object: "a mapping",
};

function kindOf(value: unknown): Kind {
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
function kindsOf(schema: SchemaNode): Kind[] | undefined {
  const types = typesOf(schema);
  if (types !== undefined) return types.map((name) => (name === "integer" ? "number" : (name as Kind)));
  const values = Array.isArray(schema.enum) ? (schema.enum as unknown[]) : "const" in schema ? [schema.const] : undefined;
  return values?.map(kindOf);
}

/** `/api_keys/0` -> `["api_keys", 0]` */
function keyPath(pointer: string): KeyPath {
  if (pointer === "") return [];
  return pointer
    .split("/")
    .slice(1)
    .map((part) => part.replaceAll("~1", "/").replaceAll("~0", "~"))
    .map((part) => (/^\d+$/.test(part) ? Number(part) : part));
}

/** `a or b`, `one of a, b, c` */
export function alternatives(words: readonly string[]): string {
  if (words.length <= 2) return words.join(" or ");
  return `one of ${words.join(", ")}`;
}

function quoted(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** `root` is the whole value checked, for the words that quote a part of it. */
function problemFrom(error: ErrorObject, root: unknown): SchemaProblem {
  const params = error.params as Record<string, unknown>;
  const parent = (error.parentSchema ?? {}) as SchemaNode;
  const at = keyPath(error.instancePath);
  const about = (problem: string): SchemaProblem => ({ kind: "value", at, problem });
  if (error.propertyName !== undefined) {
    const what = typeof parent.description === "string" ? parent.description : "an allowed key";
    // The key it was meant to be says more than the list of every key allowed.
    const meant = Array.isArray(parent.enum) ? meantValue(error.propertyName, parent.enum) : "";
    const allowed = meant === "" && Array.isArray(parent.enum) ? ` (${alternatives(parent.enum.map(quoted))})` : "";
    return { kind: "bad key", at, key: error.propertyName, problem: `is not ${what}${meant}${allowed}` };
  }
  switch (error.keyword) {
    case "required":
      return { kind: "value", at: [...at, String(params.missingProperty)], problem: "is required" };
    case "additionalProperties": {
      const key = String(params.additionalProperty);
      const known = Object.keys(parent.properties ?? {});
      return { kind: "unknown key", at, key, suggestion: closestKey(key, known) };
    }
    case "type":
      return about(`must be ${alternatives([params.type].flat().map((name) => KIND_WORDS[name as Kind | "integer"]))}`);
    case "enum": {
      const allowedValues = params.allowedValues as unknown[];
      return about(`must be ${alternatives(allowedValues.map(quoted))}${meantValue(valueAt(root, error.instancePath), allowedValues)}`);
    }
    case "const":
      return about(`must be ${quoted(params.allowedValue)}`);
    case "minimum":
      return about(`must be at least ${String(params.limit)}`);
    case "maximum":
      return about(`must be at most ${String(params.limit)}`);
    case "exclusiveMinimum":
      return about(`must be more than ${String(params.limit)}`);
    case "exclusiveMaximum":
      return about(`must be less than ${String(params.limit)}`);
    case "multipleOf":
      return about(`must be a multiple of ${String(params.multipleOf)}`);
    case "minLength":
      return about(params.limit === 1 ? "must not be empty" : `must be at least ${String(params.limit)} characters`);
    case "maxLength":
      return about(`must be at most ${String(params.limit)} characters`);
    case "minItems": {
      // An array schema names what it lists by its items' title: "must list at least one key".
      const item = typeof (parent.items as SchemaNode | undefined)?.title === "string" ? String((parent.items as SchemaNode).title) : "item";
      return about(params.limit === 1 ? `must list at least one ${item}` : `must list at least ${String(params.limit)} ${item}s`);
    }
    case "maxItems":
      return about(`must list at most ${String(params.limit)} items`);
    case "pattern":
      // A pattern says nothing to a person; the schema's description says what the value must be.
      return about(typeof parent.description === "string" ? `must be ${parent.description}` : `must match ${String(params.pattern)}`);
    default:
      return about((error.message ?? "is invalid").replace("must NOT", "must not"));
  }
}
