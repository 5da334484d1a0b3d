// sendmock's own inputs (config, options, fault rules) checked by the engine's validators of their
// schemas, and the violation that explains the failure best told in words about the key.

import type { ValidateFunction } from "ajv";
import { valueAt } from "../domain/json.js";
import { closestKey, meantValue } from "../domain/suggestion.js";
import type { Violation } from "../domain/violation.js";
import { inputCompiledAtRunTime, inputValidator } from "./engine.js";
import { violationsFrom } from "./violations.js";

/** Keys and indexes from the root of a value to one part of it: `["rate_limit", "per_seconds"]`, `["api_keys", 0]`. */
export type KeyPath = readonly (string | number)[];

/** Spells one key of a path; `parent` is the path of the mapping that holds it. */
export type KeyNaming = (key: string, parent: KeyPath) => string;

/** `rate_limit.per_seconds`, `api_keys[0]`, `faults[2].match.to`: a path the way a person writes it. */
export function pathName(at: KeyPath, naming: KeyNaming): string {
  return at.reduce<string>(
    (name, key, index) => (typeof key === "number" ? `${name}[${key}]` : `${name === "" ? "" : `${name}.`}${naming(key, at.slice(0, index))}`),
    "",
  );
}

export type SchemaCheck = (value: unknown) => Violation | undefined;

/** The check of the validator `validator` gives (one compiled for the `input` checking of contract/engine.ts). */
export function checkWith(validator: () => ValidateFunction): SchemaCheck {
  let validate: ValidateFunction | undefined;
  return (value) => {
    // Loaded (or compiled) at the first value: a mock that never adds a fault rule never compiles its check.
    validate ??= validator();
    if (validate(value)) return undefined;
    const telling = mostTelling(violationsFrom(validate.errors ?? [], value)) ?? { path: "", message: "is invalid" };
    return { ...telling, found: valueAt(value, telling.path) };
  };
}

/** A check of `schema`: returns the violation that explains the failure best, or undefined when the value fits. */
export const schemaCheck = (schema: object): SchemaCheck => checkWith(() => inputValidator(schema));

/** The same check, compiled when first used even where the build generated it: what a tree never built runs. */
export const schemaCheckCompiledAtRunTime = (schema: object): SchemaCheck => checkWith(() => inputCompiledAtRunTime(schema));

/** An unknown key usually explains the required key it was meant to be, so it is told first. */
const PRIORITY = ["additionalProperties", "required"];

/** A `type: string` beside an `enum` (admin.yaml's FaultKind): the enum's error says more, the values it takes. */
function isSaidByEnum(violation: Violation, violations: readonly Violation[]): boolean {
  const enumPath = violation.schemaPath?.replace(/type$/, "enum");
  return violation.keyword === "type" && violations.some((other) => other.keyword === "enum" && other.schemaPath === enumPath);
}

/** The one violation a person is told: an input's error names one problem, the one that explains it best. */
function mostTelling(violations: readonly Violation[]): Violation | undefined {
  const rank = (violation: Violation): number => {
    const index = PRIORITY.indexOf(violation.keyword ?? "");
    return index === -1 ? PRIORITY.length : index;
  };
  return violations.filter((violation) => !isSaidByEnum(violation, violations)).sort((a, b) => rank(a) - rank(b))[0];
}

const KIND_WORDS: Readonly<Record<string, string>> = {
  null: "null",
  boolean: "true or false",
  number: "a number",
  integer: "a whole number",
  string: "a string",
  array: "a list",
  object: "a mapping",
};

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

/** The violation as one sentence; `whole` names the value itself when the violation is about all of it. */
export function describeProblem(violation: Violation, naming: KeyNaming, whole: string): string {
  const at = keyPath(violation.path);
  const keyed = violation.keyword === "additionalProperties";
  const name = pathName(keyed ? at.slice(0, -1) : at, naming);
  const within = (text: string): string => (name === "" ? text : `${name}: ${text}`);
  if (violation.badKey !== undefined) return within(`${violation.badKey} ${badKeyWords(violation)}`);
  if (keyed) {
    const key = String(at.at(-1));
    const suggestion = closestKey(key, violation.known ?? []);
    return within(`unknown key ${naming(key, at.slice(0, -1))}${suggestion === undefined ? "" : ` (did you mean ${naming(suggestion, at.slice(0, -1))}?)`}`);
  }
  return `${name === "" ? whole : name} ${valueWords(violation)}`;
}

/** What a key refused as a key must be: the key it was meant to be says more than the list of every key allowed. */
function badKeyWords(violation: Violation): string {
  const what = violation.description ?? "an allowed key";
  const values = violation.allowed;
  const meant = values === undefined ? "" : meantValue(violation.badKey, values);
  const allowed = meant === "" && values !== undefined ? ` (${alternatives(values.map(quoted))})` : "";
  return `is not ${what}${meant}${allowed}`;
}

/** What a value must be, in a person's words. */
function valueWords(violation: Violation): string {
  const limit = String(violation.limit);
  switch (violation.keyword) {
    case "required":
      return "is required";
    case "type":
      return `must be ${alternatives((violation.types ?? []).map((type) => KIND_WORDS[type] ?? type))}`;
    case "oneOf":
    case "anyOf": {
      if (violation.types === undefined) return violation.message;
      // null stands for "not set": naming it would read as the schema artefact `must be null`.
      const words = [...new Set(violation.types.filter((type) => type !== "null").map((type) => KIND_WORDS[type] ?? type))];
      return words.length > 0 ? `must be ${alternatives(words)}` : "is invalid";
    }
    case "enum": {
      const values = violation.allowed ?? [];
      return `must be ${alternatives(values.map(quoted))}${meantValue(violation.found, values)}`;
    }
    case "const":
      return `must be ${quoted(violation.allowed?.[0])}`;
    case "minimum":
      return `must be at least ${limit}`;
    case "maximum":
      return `must be at most ${limit}`;
    case "exclusiveMinimum":
      return `must be more than ${limit}`;
    case "exclusiveMaximum":
      return `must be less than ${limit}`;
    case "multipleOf":
      return `must be a multiple of ${limit}`;
    case "minLength":
      return violation.limit === 1 ? "must not be empty" : `must be at least ${limit} characters`;
    case "maxLength":
      return `must be at most ${limit} characters`;
    case "minItems": {
      // An array schema names what it lists by its items' title: "must list at least one key".
      const item = violation.itemTitle ?? "item";
      return violation.limit === 1 ? `must list at least one ${item}` : `must list at least ${limit} ${item}s`;
    }
    case "maxItems":
      return `must list at most ${limit} items`;
    case "pattern":
      // A pattern says nothing to a person; the schema's description says what the value must be.
      return violation.description === undefined ? `must match ${String(violation.pattern)}` : `must be ${violation.description}`;
    default:
      return violation.message.replace("must NOT", "must not");
  }
}
