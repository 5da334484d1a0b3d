// Every webhook payload is checked against openapi/send.yaml (`webhooks`) before it leaves: a
// payload off the contract is a sendmock bug, told and never sent. Compiled once per document.

import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import type { Contract } from "./load.js";
import { violationOf } from "./violations.js";
import type { WebhookPayload } from "../wire.js";

const SCHEMA_POINTER = "#/components/schemas/WebhookPayload";

const compiledChecks = new WeakMap<Contract, ValidateFunction>();

function payloadValidator(sendContract: Contract): ValidateFunction {
  let validate = compiledChecks.get(sendContract);
  if (validate) return validate;
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
  addFormats.default(ajv, { mode: "full" });
  ajv.addSchema(structuredClone(sendContract.document), "send.yaml");
  validate = ajv.getSchema(`send.yaml${SCHEMA_POINTER}`);
  if (!validate) throw new Error(`${sendContract.file} has no ${SCHEMA_POINTER}`);
  compiledChecks.set(sendContract, validate);
  return validate;
}

/** What is wrong with a payload against the contract, in one line, or undefined. */
export function webhookPayloadCheck(sendContract: Contract): (payload: WebhookPayload) => string | undefined {
  const validate = payloadValidator(sendContract);
  return (payload) => {
    if (validate(payload)) return undefined;
    return (validate.errors ?? [])
      .map((error) => violationOf(error, payload))
      .map((violation) => `${violation.path || "/"} ${violation.message}`)
      .join("; ");
  };
}
