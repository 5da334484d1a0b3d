// The one writer of /send: an outcome judged against the contract, kept for its Idempotency-Key, written in one write, journaled and logged.

import type { IncomingMessage, ServerResponse } from "node:http";
import type { ContractChecker } from "../contract/check.js";
import type { OperationChecks } from "../contract/operation-checks.js";
import { ContractRefusal } from "../contract/refusal.js";
import type { IdempotencyStore, KeptResponse } from "../domain/idempotency.js";
import { isKeptResponse } from "../send/idempotency.js";
import type { Journal } from "../domain/journal.js";
import { turnEnds } from "../domain/turns.js";
import type { SettingsStore } from "../domain/settings.js";
import { ApiError, boundedViolations, type ErrorCode, type Violation } from "../errors.js";
import { WARNING_HEADER } from "../send/capture.js";
import { errorNotes, type SendResponse, type SendOutcome, type SendCall, type SendNotes } from "../send/exchange.js";
import { ERROR_CODE_HEADER, errorResponse, JSON_TYPE } from "../send/shapes.js";
import type { JournalEntry } from "../wire.js";
import { journalEntryOf, type SentResponse } from "./journal-entry.js";

export interface SendWriterDeps {
  /** POST /send's operation in the send contract: the response check. */
  checks: OperationChecks;
  /** Judges the response of a `respond` fault as `sendmock proxy` judges the service's; built on first use. */
  responseChecker: () => Promise<ContractChecker>;
  idempotency: Pick<IdempotencyStore, "keep" | "release">;
  journal: Pick<Journal, "record">;
  /** How much of a request's and a response's body a journal entry keeps. */
  journalBodyBytes: number;
  /** The request log's line for each request to /send; absent, nothing is logged. */
  logRequest?: (entry: JournalEntry) => void;
  settings: SettingsStore;
  statusCodes: Partial<Record<ErrorCode, number>>;
  toApiError: (error: unknown, body: unknown) => ApiError;
  /** Aborted when the server closes: held connections are let go at once. */
  shutdown: AbortSignal;
}

/** What every response carries: a browser must not run a JSON error or a captured email as a script, nor tell a linked site the mock's address. */
const EVERY_RESPONSE = { "x-content-type-options": "nosniff", "referrer-policy": "no-referrer" } as const;

/** The headers that belong to a response itself; the rate-limit fields describe the request at hand and are never replayed. */
const KEPT_HEADERS = ["content-type", ERROR_CODE_HEADER, WARNING_HEADER, "retry-after"];

function keptResponseOf(sent: SentResponse, messageId: string | undefined): KeptResponse {
  const headers: Record<string, string> = {};
  for (const name of KEPT_HEADERS) {
    const value = sent.headers[name];
    if (value !== undefined) headers[name] = value;
  }
  const body = typeof sent.body === "string" ? sent.body : Buffer.from(sent.body).toString("utf8");
  return { status: sent.status, headers, body, messageId: messageId ?? null };
}

/** The flat name, value list `writeHead` takes, which Node writes without building a header object. */
function headerList(headers: Readonly<Record<string, string>>): string[] {
  const list: string[] = [];
  for (const name in headers) list.push(name, headers[name] ?? "");
  return list;
}

/**
 * Leaves the client without a response for `ms`, then closes the connection; resolves, once it
 * is gone, with whether the client closed it first (it gave up waiting).
 */
function holdThenClose(socket: IncomingMessage["socket"], ms: number, shutdown: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
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
      resolve(!closedHere);
    });
    shutdown.addEventListener("abort", close, { once: true });
  });
}

export type SendWriter = (
  call: SendCall,
  outcome: SendOutcome,
  req: IncomingMessage,
  res: ServerResponse,
  extraHeaders: Readonly<Record<string, string>>,
) => Promise<void>;

export function createSendWriter(deps: SendWriterDeps): SendWriter {
  const endOfTurn = turnEnds();

  /** The response judged as its outcome says: one that breaks the contract where sendmock enforces it becomes a server_error naming why. */
  function enforced(response: SendResponse, notes: SendNotes): { response: SendResponse; notes: SendNotes } {
    if (!("json" in response.body)) return { response, notes };
    const issues = deps.checks.response(response.status, response.body.json);
    if (issues.length === 0) return { response, notes };
    const error = deps.toApiError(new ContractRefusal("broken_response", "A response breaks the contract", issues), undefined);
    const writing = { shape: deps.settings.current().responseShape, statusCodes: deps.statusCodes };
    return { response: errorResponse(error, writing, response.headers), notes: errorNotes(notes, error) };
  }

  /** Keeps the response for the request's key, or lets the key go; a store that is down must not keep the response from the client. */
  async function settle(outcome: SendOutcome, sent: SentResponse | undefined, notes: SendNotes): Promise<void> {
    const { claim } = outcome;
    if (claim === undefined) return;
    const keys = outcome.sandbox?.idempotency ?? deps.idempotency;
    const keep = sent !== undefined && isKeptResponse(sent.status, notes.fault);
    await (keep ? keys.keep(claim.scope, claim.fingerprint, keptResponseOf(sent, notes.messageId)) : keys.release(claim.scope)).catch(() => undefined);
  }

  function record(call: SendCall, outcome: SendOutcome, facts: Parameters<typeof journalEntryOf>[1]): void {
    const entry = journalEntryOf(call, facts, deps.journalBodyBytes);
    // A journal that cannot be written (a shared store that is down) must not bring the process
    // down: the client already has its response, a 503 naming the store if it was down.
    (outcome.sandbox?.journal ?? deps.journal).record(entry).catch(() => undefined);
    deps.logRequest?.(entry);
  }

  return async function writeOutcome(call, outcome, req, res, extraHeaders) {
    if (outcome.kind === "disconnect" || outcome.kind === "hold") {
      await settle(outcome, undefined, outcome.notes);
      // Journaled when the hold ends, when what happened is known: the client gave up, or
      // sendmock closed the connection after delay_ms (or on shutdown).
      const clientGone = outcome.kind === "hold" ? await holdThenClose(req.socket, outcome.holdMs, deps.shutdown) : (req.socket.destroy(), false);
      record(call, outcome, { notes: outcome.notes, sent: undefined, clientGone, responseViolations: undefined });
      return;
    }

    const judged = outcome.kind === "response" && outcome.judge === "enforce" ? enforced(outcome.response, outcome.notes) : outcome;
    const { response, notes } = judged;
    const body = "json" in response.body ? JSON.stringify(response.body.json) : response.body.bytes;
    const headers: Record<string, string> = { ...EVERY_RESPONSE, ...extraHeaders, ...response.headers };
    if ("json" in response.body) headers["content-type"] = JSON_TYPE;
    headers["content-length"] = String(typeof body === "string" ? Buffer.byteLength(body) : body.length);
    const sent: SentResponse = { status: response.status, headers, body };

    let responseViolations: Violation[] | undefined;
    if (outcome.kind === "response" && outcome.judge === "record") {
      const violations = (await deps.responseChecker()).checkResponse({
        status: sent.status,
        headers,
        body: typeof body === "string" ? body : Buffer.from(body).toString("utf8"),
      });
      responseViolations = boundedViolations(violations.map(({ path, message }) => ({ path, message })));
    }
    // Kept before the response goes out: a client that retries the moment it reads it must find it kept.
    await settle(outcome, sent, notes);

    if (outcome.kind === "lost") {
      // Sent, then lost on the way: the connection is cut where the response would have gone.
      req.socket.destroy();
      record(call, outcome, { notes, sent: undefined, clientGone: false, responseViolations });
      return;
    }
    // With the other responses that end in this turn, at its end (domain/turns.ts says what that saves).
    await endOfTurn();
    const delivered = !res.destroyed && !req.socket.destroyed;
    if (delivered) {
      // A string body goes out in one write with the header block; bytes (a relayed response) in the same writev.
      res.writeHead(sent.status, headerList(headers));
      res.end(body);
    }
    record(call, outcome, { notes, sent: delivered ? sent : undefined, clientGone: !delivered, responseViolations });
  };
}
