// Step: the sandbox. Which sandbox a send belongs to (its base URL's or the header's, else the one its recipient names,
// else the default), and the state of that sandbox every later step uses.

import { DomainFailure } from "../domain/failure.js";
import type { FaultPlan } from "../domain/faults.js";
import type { IdempotencyStore } from "../domain/idempotency.js";
import type { Journal } from "../domain/journal.js";
import type { RateLimiter } from "../domain/rate-limiter.js";
import { checkSandboxName, DEFAULT_SANDBOX, SANDBOX_HEADER, sandboxOfRecipient } from "../domain/sandboxes.js";
import type { SendService } from "../domain/send.js";
import { headerOf, type SendCall } from "./exchange.js";
import { headerText } from "./header-text.js";

/** What the steps after the choice use of one sandbox; the writer journals and keeps responses in it too. */
export interface SendSandbox {
  readonly name: string;
  limiter: RateLimiter;
  idempotency: IdempotencyStore;
  faultPlan: FaultPlan;
  sendService: SendService;
  journal: Pick<Journal, "record">;
}

/**
 * The name of the send's sandbox. The body was parsed on arrival, so a recipient's sandbox is
 * known before the rate limiter runs; a body that does not parse names none. A name that breaks
 * the rule, or a path and a header naming two sandboxes, is an `invalid_request` failure.
 */
export function sandboxNameOf(call: SendCall, body: unknown): string {
  const header = headerOf(call, SANDBOX_HEADER);
  const fromHeader = header === undefined ? undefined : checkSandboxName(headerText(header), `The ${SANDBOX_HEADER} header`);
  if (call.pathSandbox !== undefined) {
    const fromPath = checkSandboxName(call.pathSandbox, `The path ${call.path}`);
    if (fromHeader !== undefined && fromHeader !== fromPath)
      throw new DomainFailure(
        "invalid_request",
        `The path ${call.path} names the sandbox ${JSON.stringify(fromPath)} and the ${SANDBOX_HEADER} header names ${JSON.stringify(fromHeader)}: name one sandbox, or the same in both`,
      );
    return fromPath;
  }
  if (fromHeader !== undefined) return fromHeader;
  const to = body !== null && typeof body === "object" ? (body as Record<string, unknown>).to : undefined;
  return (typeof to === "string" ? sandboxOfRecipient(to) : undefined) ?? DEFAULT_SANDBOX;
}
