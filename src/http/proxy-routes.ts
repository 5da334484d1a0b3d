// POST /send in proxy mode: relayed to the real service, both directions checked against the contract, journaled and captured.

import { randomUUID } from "node:crypto";
import express, { type Request, type Response } from "express";
import type { ContractChecker } from "../contract/check.js";
import { apiKeyHint } from "../domain/api-keys.js";
import { bodyText } from "../domain/excerpt.js";
import type { Journal } from "../domain/journal.js";
import { parseJson } from "../domain/json.js";
import type { SendService } from "../domain/send.js";
import type { SettingsStore } from "../domain/settings.js";
import { ApiError, isErrorCode, type ErrorCode, type ExplainedViolation as ContractViolation, type Violation } from "../errors.js";
import type { JournalEntry, SendRequest } from "../wire.js";
import { bearerToken } from "./auth.js";
import { forwardSend, UpstreamError, type UpstreamAnswer } from "./forward.js";
import { sendRecordOf } from "./request-record.js";
import { headerSafe } from "./header-values.js";
import { journalRecorder, rejectOtherMethods, sendErrorHandler } from "./send-recording.js";

export interface ProxyRoutesDeps {
  /** The real service's base URL. */
  target: string;
  /** Answer 502 contract_violation instead of passing on an answer that breaks the contract. */
  strict: boolean;
  timeoutMs: number;
  checker: ContractChecker;
  journal: Journal;
  /** How much of a request's and an answer's body a journal entry keeps. */
  journalBodyBytes: number;
  /** The mock's one send service: captures what the real service accepted. */
  sendService: SendService;
  settings: SettingsStore;
  bodyLimitBytes: number;
  statusCodes: Partial<Record<ErrorCode, number>>;
  /** The request log's line for each request to /send; absent, nothing is logged. */
  logRequest?: (entry: JournalEntry) => void;
}

export const VIOLATIONS_HEADER = "X-Sendmock-Violations";
export const VIOLATIONS_HEADER_MAX = 512;

type Json = Record<string, unknown>;

function asObject(value: unknown): Json | undefined {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Json) : undefined;
}

function plain(violations: readonly ContractViolation[]): Violation[] {
  return violations.map(({ path, message }) => ({ path, message }));
}

/** `2 violations: /response/message_id message_id is required; /to must match format "email"` */
export function summarize(violations: readonly Violation[]): string {
  const count = `${violations.length} violation${violations.length === 1 ? "" : "s"}`;
  return `${count}: ${violations.map((violation) => `${violation.path} ${violation.message}`).join("; ")}`;
}

/** The summary as a header value: printable ASCII, at most 512 characters. */
export function violationsHeader(violations: readonly Violation[]): string {
  const text = headerSafe(summarize(violations));
  return text.length <= VIOLATIONS_HEADER_MAX ? text : `${text.slice(0, VIOLATIONS_HEADER_MAX - 3)}...`;
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : [];
}

/** The request as the proxy relayed it, its fields of the wrong type left out: it may break the contract. */
function relayedRequest(request: Json): SendRequest {
  return {
    to: String(request.to),
    template_id: String(request.template_id),
    cc: strings(request.cc),
    bcc: strings(request.bcc),
    reply_to: typeof request.reply_to === "string" ? request.reply_to : undefined,
    subject: typeof request.subject === "string" ? request.subject : undefined,
    data: (asObject(request.data) ?? {}) as SendRequest["data"],
  };
}

/** The id the service gave the message (`message_id` in shape a, `email_id` in shape b). */
function upstreamId(answer: UpstreamAnswer): string | undefined {
  const parsed = parseJson(answer.bytes);
  const body = parsed.ok ? asObject(parsed.value) : undefined;
  const id = body?.message_id ?? body?.email_id;
  return typeof id === "string" && id !== "" ? id : undefined;
}

/** What an error answer of the service says, in either shape, for the journal. */
function upstreamError(answer: UpstreamAnswer): { code: ErrorCode | undefined; message: string } {
  const parsed = parseJson(answer.bytes);
  const body = parsed.ok ? asObject(parsed.value) : undefined;
  const error = asObject(body?.error);
  const code = answer.headers["x-sendmock-error-code"] ?? error?.code;
  const message = error?.message ?? body?.message;
  return {
    code: typeof code === "string" && isErrorCode(code) ? code : undefined,
    message: typeof message === "string" ? message : `the upstream answered ${answer.status}`,
  };
}

export function createProxyRoutes(deps: ProxyRoutesDeps): express.Router {
  const { checker, sendService } = deps;
  const router = express.Router();

  router.post(
    "/send",
    journalRecorder(deps),
    // The bytes as sent, so they are forwarded unchanged; the service judges the content type.
    express.raw({ limit: deps.bodyLimitBytes, type: () => true }),
    async (req: Request, res: Response) => {
      const record = sendRecordOf(res);
      const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      record.requestBody = bodyText(raw, deps.journalBodyBytes);
      record.apiKey = bearerToken(req);
      const parsed = parseJson(raw);
      // The journal reads `to` and `template_id` from req.body.
      req.body = parsed.ok ? parsed.value : undefined;
      const requestViolations = parsed.ok ? plain(checker.checkRequest(parsed.value)) : [{ path: "", message: "the request body is not valid JSON" }];

      const clientGone = new AbortController();
      res.once("close", () => clientGone.abort(new Error("client closed the request")));
      let answer: UpstreamAnswer;
      try {
        answer = await forwardSend({ target: deps.target, headers: req.headers, body: raw, timeoutMs: deps.timeoutMs, signal: clientGone.signal });
      } catch (error) {
        if (!(error instanceof UpstreamError)) throw error;
        if (requestViolations.length > 0) res.set(VIOLATIONS_HEADER, violationsHeader(requestViolations));
        throw new ApiError("server_error", `Proxy error: ${error.message}`, { status: 502, violations: requestViolations });
      }

      const answerViolations = checker
        .checkAnswer({ status: answer.status, headers: answer.headers, body: answer.body })
        .map((violation) => ({ path: `/response${violation.path}`, message: violation.message }));
      const violations = [...requestViolations, ...answerViolations];
      if (violations.length > 0) res.set(VIOLATIONS_HEADER, violationsHeader(violations));
      if (deps.strict && answerViolations.length > 0) {
        const summary = summarize(answerViolations);
        throw new ApiError(
          "contract_violation",
          `Contract violation: the upstream's ${answer.status} answer breaks the contract, ${summary.length > 1000 ? `${summary.slice(0, 997)}...` : summary}`,
          { violations },
        );
      }

      record.violations = violations;
      const request = parsed.ok ? asObject(parsed.value) : undefined;
      if (answer.status >= 200 && answer.status < 300 && typeof request?.to === "string" && typeof request.template_id === "string") {
        const id = upstreamId(answer) ?? `msg_${randomUUID()}`;
        await sendService.captureRelayed({
          request: relayedRequest(request),
          id,
          apiKeyHint: apiKeyHint(record.apiKey ?? ""),
          requestOk: requestViolations.length === 0,
        });
        record.messageId = id;
      } else if (answer.status >= 400) {
        const error = upstreamError(answer);
        record.errorCode = error.code;
        record.errorMessage = error.message;
      }
      // setHeader, not res.set: express would add a charset to the service's Content-Type.
      for (const [name, value] of Object.entries(answer.headers)) res.setHeader(name, value);
      res.status(answer.status).send(answer.bytes);
    },
  );

  router.all("/send", ...rejectOtherMethods(deps));
  router.use(sendErrorHandler(deps));
  return router;
}
