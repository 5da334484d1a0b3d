// POST /send, the emulated API: every step of the pipeline, validated from openapi/send.yaml.

import { isUtf8 } from "node:buffer";
import contentType from "content-type";
import express, { type NextFunction, type Request, type Response } from "express";
import { apiKeyHint, type KeyCheck } from "../domain/api-keys.js";
import { bodyText } from "../domain/excerpt.js";
import type { IdempotencyStore } from "../domain/idempotency.js";
import type { Journal } from "../domain/journal.js";
import type { RateLimiter } from "../domain/rate-limiter.js";
import type { SendService } from "../domain/send.js";
import type { SettingsStore } from "../domain/settings.js";
import { ApiError, type ErrorCode } from "../errors.js";
import type { JournalEntry, SendRequest } from "../wire.js";
import { requireApiKey } from "./auth.js";
import { successBody } from "./error-shapes.js";
import { injectFaults, type FaultStepDeps } from "./fault-steps.js";
import { headerSafe } from "./header-values.js";
import { checkIdempotencyKey, honourIdempotencyKey } from "./idempotency-step.js";
import { limitRate } from "./rate-limit-step.js";
import { sendRecordOf } from "./request-record.js";
import { journalRecorder, rejectOtherMethods, sendErrorHandler } from "./send-recording.js";
import type { Contract } from "../contract/load.js";
import { operationChecks } from "../contract/operation-checks.js";
import { checkAnswers, refuseOffContractRequests } from "./contract-steps.js";

export interface SendRoutesDeps extends FaultStepDeps {
  contract: Contract;
  limiter: RateLimiter;
  idempotency: IdempotencyStore;
  keys: KeyCheck;
  settings: SettingsStore;
  sendService: SendService;
  journal: Journal;
  /** How much of a request's and an answer's body a journal entry keeps. */
  journalBodyBytes: number;
  bodyLimitBytes: number;
  statusCodes: Partial<Record<ErrorCode, number>>;
  /** The request log's line for each request to /send; absent, nothing is logged. */
  logRequest?: (entry: JournalEntry) => void;
}

export const WARNING_HEADER = "X-Sendmock-Warning";

/**
 * Clients refuse an answer whose header block is too long (Node's limit is 16 KB), and a
 * request may carry thousands of unknown data keys: the header says as much as fits, the
 * captured message keeps every warning.
 */
const WARNING_HEADER_MAX_LENGTH = 1000;

function warningHeaderValue(warnings: readonly string[]): string {
  const full = headerSafe(warnings.join("; "));
  if (full.length <= WARNING_HEADER_MAX_LENGTH) return full;
  const more = ` ... (${warnings.length} warnings in all; the captured message lists every one)`;
  // A cut must not leave half of an escape such as \u00e9 behind.
  const kept = full.slice(0, WARNING_HEADER_MAX_LENGTH - more.length).replace(/\\(u[0-9a-f]{0,3})?$/, "");
  return `${kept}${more}`;
}

function requireJsonContentType(req: Request, _res: Response, next: NextFunction): void {
  const header = req.get("content-type");
  let parsed: contentType.ContentType | undefined;
  try {
    parsed = header === undefined ? undefined : contentType.parse(header);
  } catch {
    parsed = undefined;
  }
  if (parsed?.type !== "application/json") {
    const found = header === undefined ? "no Content-Type" : `Content-Type ${JSON.stringify(header)}`;
    next(
      new ApiError("unsupported_media_type", `Unsupported media type: the body must be sent as application/json, got ${found}`, {
        violations: [{ path: "/headers/content-type", message: "content-type must be application/json" }],
      }),
    );
    return;
  }
  // JSON between systems is UTF-8 (RFC 8259); decoding a body as latin1 or UTF-16 would capture
  // text the client never meant, so any other charset is refused by name.
  const charset = parsed.parameters.charset;
  if (charset !== undefined && charset.toLowerCase() !== "utf-8") {
    next(
      new ApiError("unsupported_media_type", `Unsupported charset ${JSON.stringify(charset)}: the body must be JSON in UTF-8 (charset=utf-8, or no charset)`, {
        violations: [{ path: "/headers/content-type", message: "the charset must be utf-8" }],
      }),
    );
    return;
  }
  next();
}

const BYTE_ORDER_MARK = "\ufeff";

/**
 * The JSON value of a body read as bytes. Invalid UTF-8 is refused, not read as U+FFFD: the
 * captured message would differ from what was sent. A leading byte order mark is skipped, as
 * express.json did before the body came to be read up front.
 */
function parseJsonBody(raw: Buffer): { ok: true; value: unknown } | { ok: false; error: ApiError } {
  if (raw.length === 0) return { ok: false, error: new ApiError("invalid_json", "Invalid JSON body: expected a JSON object, got an empty body") };
  if (!isUtf8(raw)) return { ok: false, error: new ApiError("invalid_json", "Invalid JSON body: the body is not valid UTF-8 (JSON must be sent as UTF-8)") };
  const text = raw.toString("utf8");
  try {
    return { ok: true, value: JSON.parse(text.startsWith(BYTE_ORDER_MARK) ? text.slice(1) : text) as unknown };
  } catch (error) {
    return { ok: false, error: new ApiError("invalid_json", `Invalid JSON body: ${error instanceof Error ? error.message : String(error)}`) };
  }
}

/**
 * A send whose body is past this size lets other requests go between its steps. Parsing,
 * checking, rendering and capturing a 900 KB value take ~20 ms of the event loop together (the
 * message's JSON alone ~5 ms), and four of them in a row held a small send behind them for
 * ~85 ms (p99) in the bench's abuse section. Yielding once the body is read and again before
 * the send itself cut that to 71-78 ms; either yield alone made it worse (83-108 ms). It costs
 * the large sends themselves some throughput, and RSS a little more in-flight garbage (478 ->
 * 506-546 MB under the same attack).
 */
const LARGE_BODY_BYTES = 64 * 1024;

/** Lets the requests already waiting be answered before a large send's next step (a small one goes on at once). */
function letOthersGo(req: Request, _res: Response, next: NextFunction): void {
  if (Number(req.headers["content-length"] ?? 0) > LARGE_BODY_BYTES) setImmediate(next);
  else next();
}

/** Why the body could not be read or parsed, kept until the pipeline reaches the JSON step. */
const BODY_PROBLEM = "sendmockBodyProblem";

/**
 * Reads and parses the body before any check, so the journal shows what was sent, and names
 * `to` and `template_id` of a request the key check or the rate limiter refuses. A body that
 * cannot be read (over body_limit, an undecodable Content-Encoding) or parsed is only refused
 * at its turn, after the content type: the order of the checks is unchanged. The bytes are
 * held until parsed, no longer; the journal keeps their first `journal_body_bytes`.
 */
function readBody(bodyLimitBytes: number, journalBodyBytes: number): [express.RequestHandler, express.ErrorRequestHandler, express.RequestHandler] {
  return [
    express.raw({ limit: bodyLimitBytes, type: () => true }),
    (readError: unknown, _req: Request, res: Response, next: NextFunction) => {
      res.locals[BODY_PROBLEM] = readError;
      next();
    },
    (req: Request, res: Response, next: NextFunction) => {
      const raw: unknown = req.body;
      req.body = undefined;
      if (Buffer.isBuffer(raw)) {
        sendRecordOf(res).requestBody = bodyText(raw, journalBodyBytes);
        const parsed = parseJsonBody(raw);
        if (parsed.ok) req.body = parsed.value;
        else res.locals[BODY_PROBLEM] = parsed.error;
      }
      next();
    },
  ];
}

/** The JSON step: the body's read or parse problem, if any, else anything but a JSON object is refused. */
function requireJsonObject(req: Request, res: Response, next: NextFunction): void {
  const problem: unknown = res.locals[BODY_PROBLEM];
  if (problem !== undefined) {
    next(problem);
    return;
  }
  const body: unknown = req.body;
  if (body !== null && typeof body === "object" && !Array.isArray(body)) {
    next();
    return;
  }
  const kind = body === undefined ? "an empty body" : body === null ? "null" : Array.isArray(body) ? "an array" : `a ${typeof body}`;
  next(new ApiError("invalid_json", `Invalid JSON body: expected a JSON object, got ${kind}`));
}

export function createSendRoutes(deps: SendRoutesDeps): express.Router {
  const { settings, sendService } = deps;
  const router = express.Router();
  const checks = operationChecks(deps.contract, "/send", "post");
  const answerError = sendErrorHandler(deps);

  router.post(
    "/send",
    journalRecorder(deps),
    checkAnswers(checks, answerError),
    ...readBody(deps.bodyLimitBytes, deps.journalBodyBytes),
    letOthersGo,
    requireApiKey(deps.keys),
    limitRate(deps),
    requireJsonContentType,
    requireJsonObject,
    checkIdempotencyKey,
    refuseOffContractRequests(checks),
    honourIdempotencyKey(deps),
    injectFaults(deps),
    letOthersGo,
    async (req: Request, res: Response) => {
      const record = sendRecordOf(res);
      const request = req.body as SendRequest;
      const current = settings.current();
      const message = await sendService.send(request, {
        apiKey: record.apiKey ?? "",
        apiKeyHint: apiKeyHint(record.apiKey ?? ""),
        strictData: current.strictData,
      });
      record.messageId = message.id;
      if (message.warnings.length > 0) res.set(WARNING_HEADER, warningHeaderValue(message.warnings));
      const body = successBody(message.id, message.to, current.responseShape);
      if (record.fault === "lost_answer") {
        // Sent, then the answer lost on the way: kept first, so a retry with the same key gets it.
        const warning = res.getHeader(WARNING_HEADER);
        await record.keepAnswer({
          status: 200,
          headers: { "content-type": "application/json; charset=utf-8", ...(typeof warning === "string" ? { "x-sendmock-warning": warning } : {}) },
          body: JSON.stringify(body),
          messageId: message.id,
        });
        record.endWithoutAnswer();
        req.socket.destroy();
        return;
      }
      res.status(200).json(body);
    },
  );

  router.all("/send", ...rejectOtherMethods(deps));
  router.use(answerError);

  return router;
}
