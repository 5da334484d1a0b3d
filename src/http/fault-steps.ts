// The fault plan as a step of POST /send, and what each fault does to the socket.

import { setTimeout as sleep } from "node:timers/promises";
import type { NextFunction, Request, Response } from "express";
import { faultFromHeaders, faultFromRecipient } from "../domain/fault-triggers.js";
import type { ChosenFault, FaultPlan } from "../domain/faults.js";
import { ApiError } from "../errors.js";
import type { SendRequest } from "../wire.js";
import { sendRecordOf } from "./request-record.js";

export interface FaultStepDeps {
  faults: FaultPlan;
  allowFaultHeader: boolean;
  allowMagicRecipients: boolean;
  /** Aborted when the server closes: held connections are let go at once. */
  shutdown: AbortSignal;
}

const INJECTED = "(fault injected by sendmock)";

/** The error a fault stands for: the real condition's code and wording, marked as injected. */
function faultError(fault: ChosenFault, request: SendRequest): ApiError {
  switch (fault.kind) {
    case "invalid_recipient":
      return new ApiError("invalid_recipient", `Invalid recipient email address in to (${JSON.stringify(request.to)}) ${INJECTED}`);
    case "invalid_template_id":
      return new ApiError("invalid_template_id", `Invalid template ID: ${JSON.stringify(request.template_id)} ${INJECTED}`);
    case "missing_template_data":
      return new ApiError("missing_template_data", `Missing template data for template ${JSON.stringify(request.template_id)} ${INJECTED}`);
    case "rate_limit":
      return new ApiError("rate_limited", `Rate limit exceeded: retry after ${fault.retryAfterS} s ${INJECTED}`, {
        headers: { "Retry-After": String(fault.retryAfterS) },
      });
    default:
      return new ApiError("server_error", `Internal server error ${INJECTED}`, fault.status === undefined ? {} : { status: fault.status });
  }
}

/** Leaves the client without an answer for `ms`, then closes the connection. */
function holdThenClose(req: Request, ms: number, shutdown: AbortSignal): void {
  // Taken now: once the client gives up, the request lets go of its socket, which stays open.
  const { socket } = req;
  const close = (): void => {
    clearTimeout(timer);
    socket.destroy();
  };
  const timer = setTimeout(close, ms);
  socket.once("close", () => {
    clearTimeout(timer);
    shutdown.removeEventListener("abort", close);
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
      case "timeout":
        // Journaled now, when the pipeline is done with it, not when the hold ends.
        record.endWithoutAnswer();
        holdThenClose(req, fault.delayMs, deps.shutdown);
        return;
      case "malformed_response":
        // Sent as text, past the response validator: the point is a body no JSON parser accepts.
        res.status(200).type("application/json").send('{"success": true, "message_id": "msg_');
        return;
      default:
        throw faultError(fault, request);
    }
  };
}
