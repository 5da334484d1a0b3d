// What one request to the send API carries from step to step until the journal records it.

import type { Response } from "express";
import type { BodyText } from "../domain/excerpt.js";
import type { KeptAnswer } from "../domain/idempotency.js";
import type { Violation } from "../errors.js";

export interface SendRecord {
  /** Wall-clock arrival (epoch ms): the journal's `at`. */
  readonly arrivedAt: number;
  readonly startedAt: number;
  apiKey: string | undefined;
  errorCode: string | undefined;
  errorMessage: string | undefined;
  violations: readonly Violation[];
  fault: string | undefined;
  messageId: string | undefined;
  /** How a `respond` fault's answer departs from the contract; undefined when no answer was judged. */
  responseViolations: readonly Violation[] | undefined;
  /** The start of the body as read (after any Content-Encoding), up to `journal_body_bytes`; undefined when none was read. */
  requestBody: BodyText | undefined;
  /**
   * Called by a step that ends the pipeline without an answer on purpose (the disconnect and
   * timeout faults), so the journal entry is written then; a step that knows who closed the
   * connection says whether the client did. Every other ending writes an answer.
   */
  endWithoutAnswer: (clientGone?: boolean) => void;
  /** True when the answer is the one kept for the request's Idempotency-Key, sent again. */
  idempotentReplay: boolean;
  /**
   * Keeps an answer for the request's Idempotency-Key (or lets the key go, for a 429 or a 5xx);
   * called by a step that captures a message but never answers (the lost_answer fault).
   */
  keepAnswer: (answer: KeptAnswer) => Promise<void>;
}

const KEY = "sendmockRecord";

/** The record of this response, created on first use. */
export function sendRecordOf(res: Response): SendRecord {
  const existing = res.locals[KEY] as SendRecord | undefined;
  if (existing) return existing;
  const record: SendRecord = {
    arrivedAt: Date.now(),
    startedAt: performance.now(),
    apiKey: undefined,
    errorCode: undefined,
    errorMessage: undefined,
    violations: [],
    fault: undefined,
    messageId: undefined,
    responseViolations: undefined,
    requestBody: undefined,
    endWithoutAnswer: () => undefined,
    idempotentReplay: false,
    keepAnswer: () => Promise.resolve(),
  };
  res.locals[KEY] = record;
  return record;
}
