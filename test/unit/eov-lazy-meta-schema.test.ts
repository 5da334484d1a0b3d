// express-openapi-validator no longer compiles the OpenAPI meta-schema for documents it is told
// not to check; if an eov upgrade moves what the patch replaces, these tests say so.

import { createRequire } from "node:module";
import { afterEach, describe, expect, it, vi } from "vitest";
import { metaSchemaPatch } from "../../src/contract/eov-lazy-meta-schema.js";

const require = createRequire(import.meta.url);
type Framework = new (args: { apiDoc: object; validateApiSpec: boolean }) => { initialize(visitor: object): Promise<unknown> };
const eovMetaSchema = require("express-openapi-validator/dist/framework/openapi.schema.validator.js") as {
  OpenAPISchemaValidator: new (options: object) => unknown;
};
const { OpenAPIFramework } = require("express-openapi-validator/dist/framework/index.js") as { OpenAPIFramework: Framework };

const aDocument = { openapi: "3.1.0", info: { title: "t", version: "1" }, paths: {} };
const lazyClass = eovMetaSchema.OpenAPISchemaValidator;

afterEach(() => {
  eovMetaSchema.OpenAPISchemaValidator = lazyClass;
  vi.restoreAllMocks();
});

describe("eov's OpenAPI meta-schema, compiled only when a document is checked", () => {
  it("is patched in the installed express-openapi-validator", () => {
    expect(metaSchemaPatch).toEqual({ applied: true });
    expect(Object.hasOwn(lazyClass, "compilesOnFirstValidate")).toBe(true);
  });

  it("is read by eov through the module object each time a document is loaded, so the patch takes effect", async () => {
    const built: object[] = [];
    eovMetaSchema.OpenAPISchemaValidator = class RecordingValidator extends (lazyClass as new (options: object) => object) {
      constructor(options: object) {
        super(options);
        built.push(options);
      }
    };
    await new OpenAPIFramework({ apiDoc: aDocument, validateApiSpec: false }).initialize({});
    expect(built).toEqual([expect.objectContaining({ validateApiSpec: false })]);
  });

  it("still refuses a broken document when eov is asked to check it", async () => {
    vi.spyOn(console, "error").mockImplementation(() => undefined);
    const broken = { ...aDocument, info: { title: 42 } };
    await expect(new OpenAPIFramework({ apiDoc: broken, validateApiSpec: true }).initialize({})).rejects.toThrow(/args.apiDoc was invalid/);
    await expect(new OpenAPIFramework({ apiDoc: aDocument, validateApiSpec: true }).initialize({})).resolves.toBeDefined();
  });
});
