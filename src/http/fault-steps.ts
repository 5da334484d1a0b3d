// The fault plan as a step of POST /send, and what each fault does to the socket.

import { setTimeout as sleep } from "node:timers/promises";
import type { NextFunction, Request, Response } from "express";
import type { ContractChecker } from "../contract/check.js";
import { faultFromHeaders, faultFromRecipient } from "../domain/fault-triggers.js";
import { DEFAULT_RETRY_AFTER_S, type ChosenFault, type FaultPlan, type GivenAnswer } from "../domain/faults.js";
import { ApiError, boundedViolations, DEFAULT_ERROR_STATUS, type ErrorCode } from "../errors.js";
import type { SendRequest } from "../wire.js";
import { sendRecordOf } from "./request-record.js";

export interface FaultStepDeps {
  faults: FaultPlan;
  allowFaultHeader: boolean;
  allowMagicRecipients: boolean;
  /** Where an injected server_error without a status of its own takes it from. */
  statusCodes: Partial<Record<ErrorCode, number>>;
  /** Judges the answer of a `respond` fault against the send contract; built on first use. */
  answerChecker: () => Promise<ContractChecker>;
  /** Aborted when the server closes: held connections are let go at once. */
  shutdown: AbortSignal;
}

const INJECTED = "(fault injected by sendmock)";

/** What an injected server error says it is: a client logging a 503 should read a 503's name. */
const SERVER_ERROR_NAMES: Partial<Record<number, string>> = {
  500: "Internal server error",
  502: "Bad gateway",
  503: "Service unavailable",
  504: "Gateway timeout",
};

function serverError(fault: ChosenFault, statusCodes: FaultStepDeps["statusCodes"]): ApiError {
  const status = fault.status ?? statusCodes.server_error ?? DEFAULT_ERROR_STATUS.server_error;
  const name = SERVER_ERROR_NAMES[status] ?? `Server error ${status}`;
  const { retryAfterS } = fault;
  return retryAfterS === undefined
    ? new ApiError("server_error", `${name} ${INJECTED}`, { status })
    : new ApiError("server_error", `${name}: retry after ${retryAfterS} s ${INJECTED}`, { status, headers: { "Retry-After": String(retryAfterS) } });
}

/** The error a fault stands for: the real condition's code and wording, marked as injected. */
function faultError(fault: ChosenFault, request: SendRequest, statusCodes: FaultStepDeps["statusCodes"]): ApiError {
  switch (fault.kind) {
    case "invalid_recipient":
      return new ApiError("invalid_recipient", `Invalid recipient email address in to (${JSON.stringify(request.to)}) ${INJECTED}`);
    case "invalid_template_id":
      return new ApiError("invalid_template_id", `Invalid template ID: ${JSON.stringify(request.template_id)} ${INJECTED}`);
    case "missing_template_data":
      return new ApiError("missing_template_data", `Missing template data for template ${JSON.stringify(request.template_id)} ${INJECTED}`);
    case "rate_limit": {
      const retryAfterS = fault.retryAfterS ?? DEFAULT_RETRY_AFTER_S;
      return new ApiError("rate_limited", `Rate limit exceeded: retry after ${retryAfterS} s ${INJECTED}`, { headers: { "Retry-After": String(retryAfterS) } });
    }
    default:
      return serverError(fault, statusCodes);
  }
}

function headerText(value: number | string | readonly string[]): string {
  return typeof value === "object" ? value.join(", ") : String(value);
}

/**
 * Writes a `respond` fault's answer exactly as the rule gives it. `res.end`, not `res.json`:
 * the send route's answer check judges only what goes through `res.json`, and this answer may break
 * the contract on purpose. It is judged here instead, by the checker `sendmock proxy` uses, and
 * what departs goes to the journal.
 */
async function answerAsGiven(res: Response, answer: GivenAnswer, checker: () => Promise<ContractChecker>): Promise<void> {
  res.status(answer.status);
  for (const [name, value] of Object.entries(answer.headers)) res.setHeader(name, value);
  // Every header that goes out is judged, those sendmock sets on each answer included.
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(res.getHeaders())) if (value !== undefined) headers[name] = headerText(value);
  const violations = (await checker()).checkAnswer({ status: answer.status, headers, body: answer.body ?? "" });
  sendRecordOf(res).responseViolations = boundedViolations(violations.map(({ path, message }) => ({ path, message })));
  res.end(answer.body);
}

/**
 * Leaves the client without an answer for `ms`, then closes the connection; `ended` is told,
 * once the connection is gone, whether the client closed it first (it gave up waiting).
 */
function holdThenClose(req: Request, ms: number, shutdown: AbortSignal, ended: (clientGone: boolean) => void): void {
  // Taken now: once the client gives up, the request lets go of its socket, which stays open.
  const { socket } = req;
  let closedHere = false;
  const close = (): void => {
    closedHere = true;
    clearTimeout(timer);
    socket.destroy();
  };
  const timer = setTimeout(close, ms);
  socket.once("close", () => {
    clearTimeout(timer);
    shutdown.removeEventListener("abort", close);
    ended(!closedHere);
  });
  shutdown.addEventListener("abort", close, { once: true });
}

export function injectFaults(deps: FaultStepDeps) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const request = req.body as SendRequest;
    const record = sendRecordOf(res);
    const oneOffs: ChosenFault[] = [];
    const fromHeader = deps.allowFaultHeader
      ? faultFromHeaders({
          fault: req.get("x-sendmock-fault"),
          status: req.get("x-sendmock-fault-status"),
          delay: req.get("x-sendmock-fault-delay"),
          retryAfter: req.get("x-sendmock-fault-retry-after"),
        })
      : undefined;
    if (fromHeader) oneOffs.push(fromHeader);
    const fromRecipient = deps.allowMagicRecipients ? faultFromRecipient(request.to) : undefined;
    if (fromRecipient) oneOffs.push(fromRecipient);

    const outcome = await deps.faults.decide({ to: request.to, templateId: request.template_id, apiKey: record.apiKey ?? "" }, oneOffs);
    if (outcome.latencyMs > 0) {
      record.fault = "latency";
      await sleep(outcome.latencyMs, undefined, { signal: deps.shutdown }).catch(() => undefined);
    }
    const { fault } = outcome;
    if (fault === undefined) {
      next();
      return;
    }
    record.fault = fault.kind;
    switch (fault.kind) {
      case "disconnect":
        record.endWithoutAnswer();
        req.socket.destroy();
        return;
      case "lost_answer":
        // The send goes through; the handler captures the message, keeps its answer, and drops it.
        next();
        return;
      case "timeout":
        // Journaled when the hold ends, when what happened is known: the client gave up, or
        // sendmock closed the connection after delay_ms (or on shutdown).
        holdThenClose(req, fault.delayMs, deps.shutdown, (clientGone) => record.endWithoutAnswer(clientGone));
        return;
      case "malformed_response":
        // Sent as text, past the response validator: the point is a body no JSON parser accepts.
        res.status(200).type("application/json").send('{"success": true, "message_id": "msg_');
        return;
      case "respond":
        // chosenFault gives every respond its answer; without one the client would wait forever.
        if (!fault.answer) throw new Error("a respond fault without its answer");
        await answerAsGiven(res, fault.answer, deps.answerChecker);
        return;
      default:
        throw faultError(fault, request, deps.statusCodes);
    }
  };
}
