// Every webhook payload is checked against openapi/send.yaml (`webhooks`) before it leaves: a
// payload off the contract is a sendmock bug, told and never sent. Compiled once per document.

import { componentValidator } from "./schema-validator.js";
import type { Contract } from "./load.js";
import { violationOf } from "./violations.js";
import type { WebhookPayload } from "../wire.js";

/** What is wrong with a payload against the contract, in one line, or undefined. */
export function webhookPayloadCheck(sendContract: Contract): (payload: WebhookPayload) => string | undefined {
  const validate = componentValidator(sendContract, "WebhookPayload");
  return (payload) => {
    if (validate(payload)) return undefined;
    return (validate.errors ?? [])
      .map((error) => violationOf(error, payload))
      .map((violation) => `${violation.path || "/"} ${violation.message}`)
      .join("; ");
  };
}
