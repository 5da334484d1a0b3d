// JSON Schema checks for sendmock's own inputs (config, fault rules), compiled on first use so a
// start pays only for the checks it runs.

import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";

let compiler: Ajv | undefined;

/** A check of `schema`: answers the most telling error, or undefined when the value fits. */
export function schemaCheck(schema: object): (value: unknown) => ErrorObject | undefined {
  let validate: ValidateFunction | undefined;
  return (value) => {
    compiler ??= new Ajv({ strict: true });
    validate ??= compiler.compile(schema);
    if (validate(value)) return undefined;
    const errors = validate.errors ?? [];
    // Of the branches of an anyOf such as `null or a token`, the one about the value's own
    // type says what is wrong ("must match the token syntax", not "must be null").
    return errors.find((error) => error.keyword !== "type" && error.keyword !== "anyOf") ?? errors[0];
  };
}
