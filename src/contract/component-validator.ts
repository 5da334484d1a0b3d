// A compiled ajv check of one schema under `components/schemas` of a loaded contract, built once per document and schema.

import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import type { Contract } from "./load.js";

/**
 * Compiling a check costs 50-75 ms (the captured message); every mock of a process built on one
 * document shares it. Keyed by the cached `Contract` object, so an edited document gets its own.
 */
const compiledChecks = new WeakMap<Contract, Map<string, ValidateFunction>>();

/** The check of `components/schemas/<schemaName>` in `contract`, with its `$ref`s resolved inside the document. */
export function componentValidator(contract: Contract, schemaName: string): ValidateFunction {
  let byName = compiledChecks.get(contract);
  if (!byName) {
    byName = new Map();
    compiledChecks.set(contract, byName);
  }
  let validate = byName.get(schemaName);
  if (validate) return validate;
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  addFormats.default(ajv, { mode: "full" });
  ajv.addSchema(structuredClone(contract.document), "contract");
  const pointer = `#/components/schemas/${schemaName}`;
  validate = ajv.getSchema(`contract${pointer}`);
  if (!validate) throw new Error(`${contract.file} has no ${pointer}`);
  byName.set(schemaName, validate);
  return validate;
}
