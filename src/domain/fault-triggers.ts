// Faults asked for by a request itself: the X-Sendmock-Fault header family and magic recipients.

import { FAULT_KINDS, type FaultKind } from "../wire.js";
import {
  chosenFault,
  MAX_DELAY_MS,
  MAX_RETRY_AFTER_S,
  PARAMETERS_OF,
  parameterProblem,
  type ChosenFault,
  type FaultParameter,
  type ParameterNames,
} from "./faults.js";
import { DomainFailure } from "./failure.js";
import { isSandboxRecipientDomain } from "./sandboxes.js";
import { meantValue } from "./suggestion.js";

export const MAGIC_RECIPIENT_DOMAIN = "fault.sendmock.test";

/**
 * The kinds a request may ask for itself. `respond` is not one: its status, header map and body
 * fit neither a header value nor the 64 characters of an address's local part, and a rule
 * (admin API, config, `mock.faults.add`) carries them as JSON.
 */
const TRIGGERED_KINDS = FAULT_KINDS.filter((kind) => kind !== "respond");

function isTriggeredKind(value: string): value is FaultKind {
  return (TRIGGERED_KINDS as readonly string[]).includes(value);
}

function invalid(message: string, path: string, violation: string): DomainFailure {
  return new DomainFailure("invalid_request", message, [{ path, message: violation }]);
}

function unknownFault(where: string, value: string, path: string): DomainFailure {
  if (value === "respond") {
    return invalid(
      `${where}: respond cannot be asked for by a request: its status, headers and body need a rule (POST /_mock/faults, faults in the config, or mock.faults.add)`,
      path,
      `${where} cannot name respond`,
    );
  }
  // The kind it was meant to be says more than the list of every kind, as for a misspelt rule.
  const meant = meantValue(value, TRIGGERED_KINDS);
  const known = meant === "" ? ` (one of ${TRIGGERED_KINDS.join(", ")})` : meant;
  return invalid(`${where}: unknown fault ${JSON.stringify(value)}${known}`, path, `${where} must name a fault`);
}

/** What a number stands for, so that a refused one says what would be accepted. */
const UNIT_OF: Partial<Record<FaultParameter, string>> = {
  retry_after_s: ` of seconds, 0 to ${MAX_RETRY_AFTER_S}`,
  delay_ms: ` of milliseconds, 0 to ${MAX_DELAY_MS}`,
};

function headerNumber(text: string, parameter: FaultParameter, where: string, path: string): number {
  // Any run of digits: a value past the maximum is then refused by the rules' check, which says the maximum.
  if (!/^\d+$/.test(text.trim())) {
    const expected = `a whole number${UNIT_OF[parameter] ?? ""}`;
    throw invalid(`${where} must be ${expected}, got ${JSON.stringify(text)}`, path, `${where} must be ${expected}`);
  }
  return Number(text);
}

interface TriggerParameters {
  status?: number;
  retry_after_s?: number;
  delay_ms?: number;
}

/** The fault, its parameters checked as a rule's would be, with problems worded in `names` and pointed at `pathOf`. */
function checked(
  kind: FaultKind,
  parameters: TriggerParameters,
  where: string,
  names: ParameterNames,
  pathOf: (parameter: FaultParameter | undefined) => string,
): ChosenFault {
  const problem = parameterProblem({ fault: kind, ...parameters }, names);
  if (problem !== undefined) throw invalid(`${where}: ${problem.message}`, pathOf(problem.parameter), problem.message);
  return chosenFault(kind, { status: parameters.status, delayMs: parameters.delay_ms, retryAfterS: parameters.retry_after_s });
}

export interface FaultHeaders {
  fault: string | undefined;
  status: string | undefined;
  delay: string | undefined;
  retryAfter: string | undefined;
}

const HEADER_OF: ParameterNames = {
  status: "X-Sendmock-Fault-Status",
  delay_ms: "X-Sendmock-Fault-Delay",
  retry_after_s: "X-Sendmock-Fault-Retry-After",
  headers: "headers",
  body: "body",
};

/**
 * `X-Sendmock-Fault: F` with `X-Sendmock-Fault-Status: S` (server_error), `X-Sendmock-Fault-Delay: D`
 * (latency, timeout) or `X-Sendmock-Fault-Retry-After: R` (rate_limit, server_error).
 */
export function faultFromHeaders(headers: FaultHeaders): ChosenFault | undefined {
  if (headers.fault === undefined) return undefined;
  const kind = headers.fault.trim();
  const faultPath = "/headers/x-sendmock-fault";
  if (!isTriggeredKind(kind)) throw unknownFault("X-Sendmock-Fault", kind, faultPath);
  const pathOf = (parameter: FaultParameter | undefined): string => (parameter === undefined ? faultPath : `/headers/${HEADER_OF[parameter].toLowerCase()}`);
  const read = (text: string | undefined, parameter: FaultParameter): number | undefined =>
    text === undefined ? undefined : headerNumber(text, parameter, HEADER_OF[parameter], pathOf(parameter));
  const parameters: TriggerParameters = {
    status: read(headers.status, "status"),
    delay_ms: read(headers.delay, "delay_ms"),
    retry_after_s: read(headers.retryAfter, "retry_after_s"),
  };
  return checked(kind, parameters, "X-Sendmock-Fault", HEADER_OF, pathOf);
}

const PART_OF: ParameterNames = {
  status: "the status (+S)",
  delay_ms: "the delay (+D)",
  retry_after_s: "the Retry-After (+R)",
  headers: "headers",
  body: "body",
};

const LETTER_OF: Partial<Record<FaultParameter, string>> = { status: "S", delay_ms: "D", retry_after_s: "R" };

/** `server_error takes at most server_error+S+R`: the form a refused recipient should have had. */
function partsForm(kind: FaultKind): string {
  const parts = PARAMETERS_OF[kind];
  return parts.length === 0 ? `${kind} takes no + part` : `${kind} takes at most ${kind}${parts.map((parameter) => `+${LETTER_OF[parameter] ?? ""}`).join("")}`;
}

/**
 * `F@fault.sendmock.test`, or `F+P@fault.sendmock.test` where P is the Retry-After of a
 * rate_limit, the status of a server_error, or the delay in ms of a latency or timeout; and
 * `server_error+S+R@fault.sendmock.test` for a server_error with status S and Retry-After R.
 * The same local part at a sandbox's address (`F+P@NAME.sandbox.sendmock.test`) is that fault
 * in that sandbox; any other local part there is an ordinary recipient.
 */
export function faultFromRecipient(to: string): ChosenFault | undefined {
  const at = to.lastIndexOf("@");
  if (at < 0) return undefined;
  const domain = to.slice(at + 1).toLowerCase();
  const [kind = "", ...values] = to.slice(0, at).toLowerCase().split("+");
  if (domain !== MAGIC_RECIPIENT_DOMAIN && !(isSandboxRecipientDomain(domain) && isTriggeredKind(kind))) return undefined;
  const where = `to ${JSON.stringify(to)}`;
  if (!isTriggeredKind(kind)) throw unknownFault(where, kind, "/to");
  // A kind's + parts are its parameters, in the order PARAMETERS_OF lists them.
  const parts = PARAMETERS_OF[kind];
  if (values.length > parts.length) throw invalid(`${where}: ${partsForm(kind)}`, "/to", partsForm(kind));
  const parameters: TriggerParameters = {};
  values.forEach((value, index) => {
    const parameter = parts[index] as "status" | "retry_after_s" | "delay_ms";
    parameters[parameter] = headerNumber(value, parameter, `${PART_OF[parameter]} of ${to}`, "/to");
  });
  return checked(kind, parameters, where, PART_OF, () => "/to");
}
