// Ajv's errors turned into what a person reads: a JSON pointer, a sentence, what was expected
// and what was found. Shared by every check against a contract, in express or outside it.

import type { ErrorObject } from "ajv";
import { valueAt } from "../domain/json.js";

/** One way a value breaks the contract; `path` is a JSON pointer into the body, or `/status`, `/headers/<name>`. */
export interface ContractViolation {
  path: string;
  message: string;
  expected: string;
  actual: string;
}

export function show(value: unknown): string {
  if (value === undefined) return "absent";
  const json = JSON.stringify(value);
  return json.length > 60 ? `${json.slice(0, 57)}...` : json;
}

export function violationOf(error: ErrorObject, root: unknown): ContractViolation {
  const params = error.params as Record<string, unknown>;
  const actualValue = valueAt(root, error.instancePath);
  switch (error.keyword) {
    case "required": {
      const missing = String(params.missingProperty);
      return { path: `${error.instancePath}/${missing}`, message: `${missing} is required`, expected: `a ${missing}`, actual: "absent" };
    }
    case "additionalProperties": {
      const extra = String(params.additionalProperty);
      const path = `${error.instancePath}/${extra}`;
      return { path, message: `${extra} is not in the contract`, expected: "no such property", actual: show(valueAt(root, path)) };
    }
    case "const":
      return { path: error.instancePath, message: error.message ?? "wrong value", expected: show(params.allowedValue), actual: show(actualValue) };
    case "enum":
      return { path: error.instancePath, message: error.message ?? "wrong value", expected: `one of ${show(params.allowedValues)}`, actual: show(actualValue) };
    case "type":
      return { path: error.instancePath, message: error.message ?? "wrong type", expected: String(params.type), actual: show(actualValue) };
    default:
      return { path: error.instancePath, message: error.message ?? "invalid", expected: `${error.keyword} ${show(params)}`, actual: show(actualValue) };
  }
}
