// JSON Schema checks for sendmock's own inputs (config, fault rules), compiled on first use so a
// start pays only for the checks it runs.

import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";

let compiler: Ajv | undefined;

/** A check of `schema`: answers the first error, or undefined when the value fits. */
export function schemaCheck(schema: object): (value: unknown) => ErrorObject | undefined {
  let validate: ValidateFunction | undefined;
  return (value) => {
    compiler ??= new Ajv({ strict: true });
    validate ??= compiler.compile(schema);
    return validate(value) ? undefined : (validate.errors?.[0] ?? undefined);
  };
}
