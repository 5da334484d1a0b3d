// What POST /send does the same in mock and proxy mode: journal every request, write its errors, refuse other methods.

import { randomUUID } from "node:crypto";
import express, { type NextFunction, type Request, type Response } from "express";
import { apiKeyHint } from "../domain/api-keys.js";
import { boundedViolation, excerpt } from "../domain/excerpt.js";
import type { Journal } from "../domain/journal.js";
import type { SettingsStore } from "../domain/settings.js";
import { ApiError, type ErrorCode } from "../errors.js";
import type { JournalEntry } from "../wire.js";
import { createErrorHandler } from "./error-handler.js";
import { answerHeadersOf, captureAnswer, requestHeadersOf } from "./exchange-capture.js";
import { sendRecordOf } from "./request-record.js";

/** Whether the request came with a body (Content-Length or Transfer-Encoding), read or not. */
function hadBody(req: Request): boolean {
  return req.headers["transfer-encoding"] !== undefined || req.headers["content-length"] !== undefined;
}

/** The journal, with each entry also handed to `onEntry` as it is recorded. */
function tappedJournal(journal: Journal, onEntry: (entry: JournalEntry) => void): Pick<Journal, "record"> {
  return {
    record(entry) {
      const recorded = journal.record(entry);
      onEntry(entry);
      return recorded;
    },
  };
}

/**
 * Records the request in the journal once the pipeline has finished with it: when its answer is
 * handed to Node, or when a fault ends it without one. Not at the socket's close: a client that
 * gives up during a latency fault leaves a pipeline that still captures the message, and the
 * entry must name it. The same entry goes to `logRequest` (the request log), so a log line
 * always agrees with the journal.
 */
export interface JournalRecording {
  journal: Journal;
  /** How much of a request's and an answer's body an entry keeps (`journal_body_bytes`). */
  journalBodyBytes: number;
  /** The request log's line for each request to /send; absent, nothing is logged. */
  logRequest?: (entry: JournalEntry) => void;
}

export function journalRecorder({ journal: journalOnly, journalBodyBytes, logRequest }: JournalRecording) {
  const journal = logRequest === undefined ? journalOnly : tappedJournal(journalOnly, logRequest);
  return (req: Request, res: Response, next: NextFunction): void => {
    const record = sendRecordOf(res);
    let recorded = false;
    let clientGone = false;

    const recordEntry = (answered: boolean): void => {
      if (recorded) return;
      recorded = true;
      const body = req.body as Partial<Record<string, unknown>> | undefined;
      const field = (name: string): string | null => {
        const value = body?.[name];
        return typeof value === "string" ? excerpt(value) : null;
      };
      const requestBody = record.requestBody;
      const answerBody = answered ? answerText() : undefined;
      // A journal that cannot be written (a shared store that is down) must not bring the
      // process down: the client already has its answer, a 503 naming the store if it was down.
      journal
        .record({
          id: `req_${randomUUID()}`,
          at: new Date(record.arrivedAt).toISOString(),
          method: req.method,
          path: req.path,
          status: answered ? res.statusCode : 0,
          error_code: (record.errorCode ?? null) as ErrorCode | null,
          error_message: record.errorMessage ?? null,
          violations: record.violations.map(boundedViolation),
          fault: record.fault ?? null,
          message_id: record.messageId ?? null,
          duration_ms: Math.round((performance.now() - record.startedAt) * 1000) / 1000,
          api_key_hint: record.apiKey === undefined ? null : apiKeyHint(record.apiKey),
          to: field("to"),
          template_id: field("template_id"),
          response_violations: record.responseViolations === undefined ? null : [...record.responseViolations],
          request: {
            headers: requestHeadersOf(req),
            // null: a body was sent but not read (over body_limit, undecodable, cut off, or a method that takes none).
            body: requestBody?.text ?? (hadBody(req) ? null : ""),
            body_truncated: requestBody?.truncated ?? false,
          },
          response:
            answerBody === undefined
              ? null
              : { status: res.statusCode, headers: answerHeadersOf(res), body: answerBody.text, body_truncated: answerBody.truncated },
          client_gone: clientGone,
          idempotent_replay: record.idempotentReplay,
        })
        .catch(() => undefined);
    };

    const answerText = captureAnswer(res, journalBodyBytes, (delivered) => {
      clientGone ||= !delivered;
      recordEntry(delivered);
    });
    record.endWithoutAnswer = (clientLeft) => {
      // Said by the step that knows: the close that ended a hold is the client's or sendmock's.
      if (clientLeft !== undefined) clientGone = clientLeft;
      recordEntry(false);
    };
    res.once("close", () => {
      if (recorded) return;
      // Headers out but no end: express cut an answer short after an error; nothing more will come.
      if (res.headersSent) recordEntry(true);
      else clientGone = true;
    });
    next();
  };
}

/** Any method but POST on /send: 405 with `Allow: POST`, journaled and logged. */
export function rejectOtherMethods(recording: JournalRecording): express.RequestHandler[] {
  return [
    journalRecorder(recording),
    (req: Request, res: Response, next: NextFunction) => {
      res.set("Allow", "POST");
      next(new ApiError("method_not_allowed", `Method ${req.method} is not allowed on /send; use POST`));
    },
  ];
}

export interface SendErrorDeps {
  settings: SettingsStore;
  statusCodes: Partial<Record<ErrorCode, number>>;
}

/** Notes the error on the request's record for the journal, then answers it in the configured shape. */
export function sendErrorHandler(deps: SendErrorDeps): express.ErrorRequestHandler {
  return createErrorHandler({
    shape: () => deps.settings.current().responseShape,
    statusCodes: deps.statusCodes,
    quoteBody: true,
    onError(apiError, _req, res) {
      const record = sendRecordOf(res);
      record.errorCode = apiError.code;
      record.errorMessage = apiError.message;
      record.violations = apiError.violations;
    },
  });
}
