// POST /send in proxy mode: relayed to the real service, both directions checked against the contract, captured; an outcome for the one writer.

import { randomUUID } from "node:crypto";
import type { ContractChecker } from "../contract/check.js";
import { apiKeyHint } from "../domain/api-keys.js";
import { fieldExcerpt } from "../domain/excerpt.js";
import { parseJson } from "../domain/json.js";
import type { SendService } from "../domain/send.js";
import { negativeDataRejection, notAServerError, type CheckName } from "../contract/named-checks.js";
import { ApiError, isErrorCode, type ErrorCode, type ExplainedViolation, type Violation } from "../errors.js";
import { bearerToken } from "../send/authenticate.js";
import { errorNotes, type PipelineBasics, type SendNotes, type SendPipeline } from "../send/exchange.js";
import { headerSafe } from "../send/header-safe.js";
import { allowHost, requirePost } from "../send/request-line.js";
import { errorResponse } from "../send/shapes.js";
import type { SendRequest } from "../wire.js";
import { forwardSend, UpstreamError, type UpstreamResponse } from "./forward.js";

export interface ProxyPipelineDeps extends PipelineBasics {
  /** The real service's base URL. */
  target: string;
  /** SendResponse 502 contract_violation instead of passing on a response that breaks the contract. */
  strict: boolean;
  timeoutMs: number;
  /** The most of the service's response body read; a longer one is answered 502 (`--max-body-bytes`). */
  maxBodyBytes: number;
  checker: ContractChecker;
  /** The mock's one send service: captures what the real service accepted. */
  sendService: SendService;
}

export const VIOLATIONS_HEADER = "x-sendmock-violations";
export const VIOLATIONS_HEADER_MAX = 512;

type Json = Record<string, unknown>;

function asObject(value: unknown): Json | undefined {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Json) : undefined;
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
function upstreamId(response: UpstreamResponse): string | undefined {
  const parsed = parseJson(response.bytes);
  const body = parsed.ok ? asObject(parsed.value) : undefined;
  const id = body?.message_id ?? body?.email_id;
  return typeof id === "string" && id !== "" ? id : undefined;
}

/** What an error response of the service says, in either shape, for the journal. */
function upstreamError(response: UpstreamResponse): { code: ErrorCode | undefined; message: string } {
  const parsed = parseJson(response.bytes);
  const body = parsed.ok ? asObject(parsed.value) : undefined;
  const error = asObject(body?.error);
  const code = response.headers["x-sendmock-error-code"] ?? error?.code;
  const message = error?.message ?? body?.message;
  return {
    code: typeof code === "string" && isErrorCode(code) ? code : undefined,
    message: typeof message === "string" ? message : `the upstream answered ${response.status}`,
  };
}

/**
 * The named checks `sendmock check` judges a response by that an exchange through the proxy fails (check/named-checks.ts, one
 * definition for both): `not_a_server_error` for a 5xx, `negative_data_rejection` for a request the contract forbids that the
 * service did not refuse. Each is a violation of `/response/status` whose message starts with the check's name.
 */
export function namedChecksFailed(status: number, requestViolations: readonly Violation[]): Violation[] {
  const [defect] = requestViolations;
  const failed: [CheckName, ExplainedViolation | undefined][] = [
    ["not_a_server_error", notAServerError(status)],
    ["negative_data_rejection", defect === undefined ? undefined : negativeDataRejection(status, `${defect.path || "/"} ${defect.message}`)],
  ];
  return failed.flatMap(([name, verdict]) =>
    verdict === undefined ? [] : [{ path: "/response/status", message: `${name}: ${verdict.message} (expected ${verdict.expected}, got ${verdict.actual})` }],
  );
}

export function createProxyPipeline(deps: ProxyPipelineDeps): SendPipeline {
  const { checker, sendService } = deps;

  return async function relaySend(call, clientGone) {
    const writing = { shape: deps.settings.current().responseShape, statusCodes: deps.statusCodes };
    const raw = call.body ?? Buffer.alloc(0);
    const parsed = call.body === undefined ? undefined : parseJson(raw);
    const request = parsed?.ok ? asObject(parsed.value) : undefined;
    let notes: SendNotes = {
      to: fieldExcerpt(request, "to"),
      templateId: fieldExcerpt(request, "template_id"),
      apiKey: bearerToken(call.headers.authorization),
    };
    let headers: Record<string, string> = {};
    try {
      allowHost(call, deps.checkHost);
      requirePost(call);
      if (call.bodyProblem !== undefined) throw deps.toApiError(call.bodyProblem, undefined);
      const requestViolations: Violation[] = parsed?.ok
        ? checker.checkRequest(parsed.value).map(({ path, message }) => ({ path, message }))
        : [{ path: "", message: "the request body is not valid JSON" }];
      let response: UpstreamResponse;
      try {
        // The bytes as sent, so they are forwarded unchanged; the service judges the content type.
        response = await forwardSend({
          target: deps.target,
          headers: call.headers,
          body: raw,
          timeoutMs: deps.timeoutMs,
          maxBodyBytes: deps.maxBodyBytes,
          ...(clientGone && { signal: clientGone }),
        });
      } catch (error) {
        if (!(error instanceof UpstreamError)) throw error;
        if (requestViolations.length > 0) headers = { [VIOLATIONS_HEADER]: violationsHeader(requestViolations) };
        throw new ApiError("server_error", `Proxy error: ${error.message}`, { status: 502, violations: requestViolations, cause: error });
      }

      const responseViolations = checker
        .checkResponse({ status: response.status, headers: response.headers, body: response.body })
        .map((violation) => ({ path: `/response${violation.path}`, message: violation.message }));
      const violations = [...requestViolations, ...responseViolations, ...namedChecksFailed(response.status, requestViolations)];
      if (violations.length > 0) headers = { [VIOLATIONS_HEADER]: violationsHeader(violations) };
      if (deps.strict && responseViolations.length > 0) {
        const summary = summarize(responseViolations);
        throw new ApiError(
          "contract_violation",
          `Contract violation: the upstream's ${response.status} answer breaks the contract, ${summary.length > 1000 ? `${summary.slice(0, 997)}...` : summary}`,
          { violations },
        );
      }

      notes = { ...notes, violations };
      if (response.status >= 200 && response.status < 300 && typeof request?.to === "string" && typeof request.template_id === "string") {
        const id = upstreamId(response) ?? `msg_${randomUUID()}`;
        await sendService.captureRelayed({
          request: relayedRequest(request),
          id,
          apiKeyHint: apiKeyHint(notes.apiKey ?? ""),
          requestOk: requestViolations.length === 0,
        });
        notes = { ...notes, messageId: id };
      } else if (response.status >= 400) {
        const said = upstreamError(response);
        notes = { ...notes, error: { code: said.code, message: said.message, violations } };
      }
      // Relayed as the service sent it; a body without a type is plain bytes.
      const relayed = { "content-type": "application/octet-stream", ...headers, ...response.headers };
      return { kind: "response", response: { status: response.status, headers: relayed, body: { bytes: response.bytes } }, judge: "none", notes };
    } catch (thrown) {
      const error = deps.toApiError(thrown, parsed?.ok ? parsed.value : undefined);
      return { kind: "response", response: errorResponse(error, writing, headers), judge: "none", notes: errorNotes(notes, error) };
    }
  };
}
