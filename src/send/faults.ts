// Step: the fault plan. Which fault, if any, decides this request's response, after any latency it adds.

import { setTimeout as sleep } from "node:timers/promises";
import { faultFromHeaders, faultFromRecipient } from "../domain/fault-triggers.js";
import { DEFAULT_RETRY_AFTER_S, type ChosenFault, type FaultPlan } from "../domain/faults.js";
import { ApiError, DEFAULT_ERROR_STATUS, type ErrorCode } from "../errors.js";
import { headerOf, type SendCall } from "./exchange.js";

/** Where one-off faults may come from, and what ends a latency early; the rules are the sandbox's plan. */
export interface FaultSources {
  allowFaultHeader: boolean;
  allowMagicRecipients: boolean;
  /** Aborted when the server closes: a latency ends at once. */
  shutdown: AbortSignal;
}

export interface FaultDecision {
  /** True when a `latency` fault held the request first. */
  delayed: boolean;
  fault: ChosenFault | undefined;
}

/** Decides the fault (one-offs from a header or a magic recipient first, then `plan`'s rules), and waits out any latency. */
export async function decideFault(
  call: SendCall,
  target: { to: string; templateId: string; apiKey: string },
  plan: FaultPlan,
  sources: FaultSources,
): Promise<FaultDecision> {
  const oneOffs: ChosenFault[] = [];
  if (sources.allowFaultHeader) {
    const fromHeader = faultFromHeaders({
      fault: headerOf(call, "x-sendmock-fault"),
      status: headerOf(call, "x-sendmock-fault-status"),
      delay: headerOf(call, "x-sendmock-fault-delay"),
      retryAfter: headerOf(call, "x-sendmock-fault-retry-after"),
    });
    if (fromHeader) oneOffs.push(fromHeader);
  }
  const fromRecipient = sources.allowMagicRecipients ? faultFromRecipient(target.to) : undefined;
  if (fromRecipient) oneOffs.push(fromRecipient);

  const outcome = await plan.decide(target, oneOffs);
  if (outcome.latencyMs > 0) await sleep(outcome.latencyMs, undefined, { signal: sources.shutdown }).catch(() => undefined);
  return { delayed: outcome.latencyMs > 0, fault: outcome.fault };
}

const INJECTED = "(fault injected by sendmock)";

/** What an injected server error says it is: a client logging a 503 should read a 503's name. */
const SERVER_ERROR_NAMES: Partial<Record<number, string>> = {
  500: "Internal server error",
  502: "Bad gateway",
  503: "Service unavailable",
  504: "Gateway timeout",
};

function serverError(fault: ChosenFault, statusCodes: Partial<Record<ErrorCode, number>>): ApiError {
  const status = fault.status ?? statusCodes.server_error ?? DEFAULT_ERROR_STATUS.server_error;
  const name = SERVER_ERROR_NAMES[status] ?? `Server error ${status}`;
  const { retryAfterS } = fault;
  return retryAfterS === undefined
    ? new ApiError("server_error", `${name} ${INJECTED}`, { status })
    : new ApiError("server_error", `${name}: retry after ${retryAfterS} s ${INJECTED}`, { status, headers: { "Retry-After": String(retryAfterS) } });
}

/** The error a fault stands for: the real condition's code and wording, marked as injected. */
export function faultError(fault: ChosenFault, request: { to: string; templateId: string }, statusCodes: Partial<Record<ErrorCode, number>>): ApiError {
  switch (fault.kind) {
    case "invalid_recipient":
      return new ApiError("invalid_recipient", `Invalid recipient email address in to (${JSON.stringify(request.to)}) ${INJECTED}`);
    case "invalid_template_id":
      return new ApiError("invalid_template_id", `Invalid template ID: ${JSON.stringify(request.templateId)} ${INJECTED}`);
    case "missing_template_data":
      return new ApiError("missing_template_data", `Missing template data for template ${JSON.stringify(request.templateId)} ${INJECTED}`);
    case "rate_limit": {
      const retryAfterS = fault.retryAfterS ?? DEFAULT_RETRY_AFTER_S;
      return new ApiError("rate_limited", `Rate limit exceeded: retry after ${retryAfterS} s ${INJECTED}`, { headers: { "Retry-After": String(retryAfterS) } });
    }
    default:
      return serverError(fault, statusCodes);
  }
}
