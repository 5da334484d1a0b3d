// Which sandbox a /_mock call is scoped to: `?sandbox=NAME` (the contract checked its form, the rule `default`), else the X-Sendmock-Sandbox header, else none (every sandbox).

import type { Request } from "express";
import { checkSandboxName, SANDBOX_HEADER } from "../../domain/sandboxes.js";
import { headerText } from "../../send/header-text.js";
import { queryString } from "./params.js";

/** The sandbox the call names, or undefined when it names none; a header breaking the rule is an `invalid_request` failure. */
export function sandboxOfCall(req: Request): string | undefined {
  const fromQuery = queryString(req.query, "sandbox");
  // The contract has checked its form; the reserved name is the rule's own.
  if (fromQuery !== undefined) return checkSandboxName(fromQuery, "The sandbox query parameter");
  const fromHeader = req.get(SANDBOX_HEADER);
  return fromHeader === undefined ? undefined : checkSandboxName(headerText(fromHeader), `The ${SANDBOX_HEADER} header`);
}
