// Faults asked for by a request itself: the X-Sendmock-Fault header family and magic recipients.

import { ApiError } from "../errors.js";
import { FAULT_KINDS, type FaultKind } from "../wire.js";
import { checkFaultRule, chosenFault, type ChosenFault } from "./faults.js";

export const MAGIC_RECIPIENT_DOMAIN = "fault.sendmock.test";

function isFaultKind(value: string): value is FaultKind {
  return (FAULT_KINDS as readonly string[]).includes(value);
}

function unknownFault(where: string, value: string, path: string): ApiError {
  return new ApiError("invalid_request", `${where}: unknown fault ${JSON.stringify(value)} (one of ${FAULT_KINDS.join(", ")})`, {
    violations: [{ path, message: `${where} must name a fault` }],
  });
}

function wholeNumber(text: string, where: string, path: string): number {
  if (!/^\d{1,9}$/.test(text.trim())) {
    throw new ApiError("invalid_request", `${where} must be a whole number, got ${JSON.stringify(text)}`, {
      violations: [{ path, message: `${where} must be a whole number` }],
    });
  }
  return Number(text);
}

function checked(kind: FaultKind, parameters: { status?: number; delay_ms?: number; retry_after_s?: number }, where: string, path: string): ChosenFault {
  const problem = checkFaultRule({ fault: kind, ...parameters } as Parameters<typeof checkFaultRule>[0]);
  if (problem !== undefined) {
    throw new ApiError("invalid_request", `${where}: ${problem}`, { violations: [{ path, message: problem }] });
  }
  return chosenFault(kind, { status: parameters.status, delayMs: parameters.delay_ms, retryAfterS: parameters.retry_after_s });
}

export interface FaultHeaders {
  fault: string | undefined;
  status: string | undefined;
  delay: string | undefined;
}

/** `X-Sendmock-Fault: F` with `X-Sendmock-Fault-Status: S` or `X-Sendmock-Fault-Delay: D`. */
export function faultFromHeaders(headers: FaultHeaders): ChosenFault | undefined {
  if (headers.fault === undefined) return undefined;
  const kind = headers.fault.trim();
  const path = "/headers/x-sendmock-fault";
  if (!isFaultKind(kind)) throw unknownFault("X-Sendmock-Fault", kind, path);
  return checked(
    kind,
    {
      ...(headers.status !== undefined && { status: wholeNumber(headers.status, "X-Sendmock-Fault-Status", "/headers/x-sendmock-fault-status") }),
      ...(headers.delay !== undefined && { delay_ms: wholeNumber(headers.delay, "X-Sendmock-Fault-Delay", "/headers/x-sendmock-fault-delay") }),
    },
    "X-Sendmock-Fault",
    path,
  );
}

/**
 * `F@fault.sendmock.test`, or `F+S@fault.sendmock.test` where S is the status of a
 * server_error, the delay in ms of a latency or timeout, or the Retry-After of a rate_limit.
 */
export function faultFromRecipient(to: string): ChosenFault | undefined {
  const at = to.lastIndexOf("@");
  if (at < 0 || to.slice(at + 1).toLowerCase() !== MAGIC_RECIPIENT_DOMAIN) return undefined;
  const [kind = "", parameter] = to.slice(0, at).toLowerCase().split("+", 2);
  const where = `to ${JSON.stringify(to)}`;
  if (!isFaultKind(kind)) throw unknownFault(where, kind, "/to");
  if (parameter === undefined) return checked(kind, {}, where, "/to");
  const value = wholeNumber(parameter, `the +S part of ${to}`, "/to");
  const parameterName = kind === "server_error" ? "status" : kind === "rate_limit" ? "retry_after_s" : "delay_ms";
  return checked(kind, { [parameterName]: value }, where, "/to");
}
