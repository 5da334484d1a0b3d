// Stops express-openapi-validator compiling the OpenAPI meta-schema that sendmock never uses (validateApiSpec: false).

import { createRequire } from "node:module";

/**
 * eov 5.6.2 builds an `OpenAPISchemaValidator` for every document it loads, and its constructor
 * compiles the whole OpenAPI 3.1 meta-schema with ajv even when `validateApiSpec: false` means
 * its `validate` is never called (framework/index.js `initialize`). That compile was 10-15 % of
 * the CPU of `sendmock serve` up to its first answer, twice (send and admin documents), for
 * nothing: swagger-parser already checked both documents, at build or at load. Upstream made
 * `validateApiSpec: false` skip the check itself (cdimascio/express-openapi-validator#541, #544)
 * but not the compile, and offers no option for it (lazy spec loading, #833, is an open pull
 * request). eov's framework reads the class through the module object when it loads a
 * document, so replacing that export with one that compiles on the first `validate` removes the
 * cost and keeps the behaviour for anyone who does ask eov to check a document.
 */
const EOV_META_SCHEMA_MODULE = "express-openapi-validator/dist/framework/openapi.schema.validator.js";

interface MetaSchemaValidator {
  validate(document: unknown): { errors: unknown[] };
}
type MetaSchemaValidatorClass = new (options: object) => MetaSchemaValidator;

/** Whether the lazy class is in place, or why not (an eov upgrade that moved or changed the module). */
export type MetaSchemaPatch = { applied: true } | { applied: false; reason: string };

function patchMetaSchemaValidator(): MetaSchemaPatch {
  let eovModule: { OpenAPISchemaValidator?: unknown };
  try {
    eovModule = createRequire(import.meta.url)(EOV_META_SCHEMA_MODULE) as typeof eovModule;
  } catch (error) {
    return { applied: false, reason: `${EOV_META_SCHEMA_MODULE} did not load: ${error instanceof Error ? error.message : String(error)}` };
  }
  const Eager = eovModule.OpenAPISchemaValidator;
  if (typeof Eager !== "function") return { applied: false, reason: `${EOV_META_SCHEMA_MODULE} exports no OpenAPISchemaValidator class` };
  if (Object.hasOwn(Eager, "compilesOnFirstValidate")) return { applied: true };
  const EagerClass = Eager as MetaSchemaValidatorClass;

  /** eov's validator, built (and its meta-schema compiled) on the first `validate` only. */
  class LazyOpenAPISchemaValidator implements MetaSchemaValidator {
    static readonly compilesOnFirstValidate = true;
    #compiled: MetaSchemaValidator | undefined;
    constructor(private readonly options: object) {}
    validate(document: unknown): { errors: unknown[] } {
      this.#compiled ??= new EagerClass(this.options);
      return this.#compiled.validate(document);
    }
  }
  try {
    eovModule.OpenAPISchemaValidator = LazyOpenAPISchemaValidator;
  } catch (error) {
    return { applied: false, reason: `OpenAPISchemaValidator could not be replaced: ${error instanceof Error ? error.message : String(error)}` };
  }
  return { applied: true };
}

/** Applied once, when this module is first imported (before any eov middleware is built). */
export const metaSchemaPatch: MetaSchemaPatch = patchMetaSchemaValidator();
