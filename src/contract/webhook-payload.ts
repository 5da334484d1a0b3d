// Every webhook payload is checked against openapi/send.yaml (`webhooks`) before it leaves: a
// payload off the contract is a sendmock bug, told and never sent. Compiled once per document.

import { componentCheck } from "./engine.js";
import { inOneLine } from "./explained.js";
import type { Contract } from "./load.js";
import type { WebhookPayload } from "../wire.js";

/** What is wrong with a payload against the contract, in one line, or undefined. */
export function webhookPayloadCheck(sendContract: Contract): (payload: WebhookPayload) => string | undefined {
  const violationsIn = componentCheck(sendContract, "WebhookPayload");
  return (payload) => {
    const violations = violationsIn(payload);
    return violations.length === 0 ? undefined : inOneLine(violations);
  };
}
