// What one request to the send API carries from step to step until the journal records it.

import type { Response } from "express";
import type { Violation } from "../errors.js";

export interface SendRecord {
  readonly startedAt: number;
  apiKey: string | undefined;
  errorCode: string | undefined;
  errorMessage: string | undefined;
  violations: readonly Violation[];
  fault: string | undefined;
  messageId: string | undefined;
  /** How a `respond` fault's answer departs from the contract; undefined when no answer was judged. */
  responseViolations: readonly Violation[] | undefined;
}

const KEY = "sendmockRecord";

/** The record of this response, created on first use. */
export function sendRecordOf(res: Response): SendRecord {
  const existing = res.locals[KEY] as SendRecord | undefined;
  if (existing) return existing;
  const record: SendRecord = {
    startedAt: performance.now(),
    apiKey: undefined,
    errorCode: undefined,
    errorMessage: undefined,
    violations: [],
    fault: undefined,
    messageId: undefined,
    responseViolations: undefined,
  };
  res.locals[KEY] = record;
  return record;
}
