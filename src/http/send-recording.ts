// What POST /send does the same in mock and proxy mode: journal every request, write its errors, refuse other methods.

import { randomUUID } from "node:crypto";
import express, { type NextFunction, type Request, type Response } from "express";
import { apiKeyHint } from "../domain/api-keys.js";
import { excerpt } from "../domain/excerpt.js";
import type { Journal } from "../domain/journal.js";
import type { SettingsStore } from "../domain/settings.js";
import { ApiError, type ErrorCode } from "../errors.js";
import type { JournalEntry } from "../wire.js";
import { createErrorHandler } from "./error-handler.js";
import { sendRecordOf } from "./request-record.js";

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
 * Records the request in the journal once its answer is sent (or the connection closes), and
 * hands the same entry to `onEntry` (the request log), so a log line always agrees with the journal.
 */
export function journalRecorder(journalOnly: Journal, onEntry?: (entry: JournalEntry) => void) {
  const journal = onEntry === undefined ? journalOnly : tappedJournal(journalOnly, onEntry);
  return (req: Request, res: Response, next: NextFunction): void => {
    const record = sendRecordOf(res);
    res.once("close", () => {
      const body = req.body as Partial<Record<string, unknown>> | undefined;
      const field = (name: string): string | null => {
        const value = body?.[name];
        return typeof value === "string" ? excerpt(value) : null;
      };
      // A journal that cannot be written (a shared store that is down) must not bring the
      // process down: the client already has its answer, a 503 naming the store if it was down.
      journal
        .record({
          id: `req_${randomUUID()}`,
          at: new Date().toISOString(),
          method: req.method,
          path: req.path,
          status: res.headersSent ? res.statusCode : 0,
          error_code: (record.errorCode ?? null) as ErrorCode | null,
          error_message: record.errorMessage ?? null,
          violations: [...record.violations],
          fault: record.fault ?? null,
          message_id: record.messageId ?? null,
          duration_ms: Math.round((performance.now() - record.startedAt) * 1000) / 1000,
          api_key_hint: record.apiKey === undefined ? null : apiKeyHint(record.apiKey),
          to: field("to"),
          template_id: field("template_id"),
        })
        .catch(() => undefined);
    });
    next();
  };
}

/** Any method but POST on /send: 405 with `Allow: POST`, journaled and logged. */
export function rejectOtherMethods(journal: Journal, onEntry?: (entry: JournalEntry) => void): express.RequestHandler[] {
  return [
    journalRecorder(journal, onEntry),
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
