// The journal's entry for one request to /send: headers with secrets masked, bodies bounded, what the pipeline noted.

import type { HttpResponse } from "../response.js";
import { DEFAULT_SANDBOX } from "../domain/sandboxes.js";
import { randomUUID } from "node:crypto";
import { apiKeyHint } from "../domain/api-keys.js";
import { bodyText, boundedViolation, type BodyText } from "../domain/excerpt.js";
import type { ErrorCode, Violation } from "../errors.js";
import type { SendCall, SendNotes } from "../send/exchange.js";
import type { JournalEntry } from "../wire.js";

/** Headers that carry a credential: kept only as their last characters, like `api_key_hint`. */
const SECRET_HEADERS = new Set(["authorization", "proxy-authorization", "x-api-key", "cookie"]);
/** `Bearer <credentials>`: the scheme is no secret, and says what kind of key was sent. */
const AUTH_SCHEME = /^([A-Za-z][A-Za-z0-9!#$%&'*+.^_`|~-]*) +(.*)$/;

/** `Bearer test-key-1234` -> `Bearer …1234`; any other secret -> `…` and its last 4 characters (fewer when short). */
export function maskedSecret(name: string, value: string): string {
  const scheme = name.endsWith("authorization") ? AUTH_SCHEME.exec(value) : null;
  if (scheme) return `${scheme[1] ?? ""} …${apiKeyHint((scheme[2] ?? "").trim())}`;
  return `…${apiKeyHint(value.trim())}`;
}

/**
 * The request's headers as received, by lower-case name (HTTP names are case-insensitive, so a
 * test reads `authorization` whatever the client wrote); a repeated header is joined with ", ",
 * where Node's `req.headers` would keep only the first Authorization or Content-Type.
 */
export function requestHeadersOf(raw: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (let index = 0; index + 1 < raw.length; index += 2) {
    const name = (raw[index] ?? "").toLowerCase();
    const given = raw[index + 1] ?? "";
    const value = SECRET_HEADERS.has(name) ? maskedSecret(name, given) : given;
    headers[name] = Object.hasOwn(headers, name) ? `${headers[name] ?? ""}, ${value}` : value;
  }
  return headers;
}

/** A response as it went out: its status, every header sent (by lower-case name) and its body's bytes. */
export type SentResponse = HttpResponse<string | Uint8Array>;

export interface EntryFacts {
  notes: SendNotes;
  /** Undefined when no response was delivered (a fault that gives none, a client gone first). */
  sent: SentResponse | undefined;
  clientGone: boolean;
  /** How a `respond` fault's response departs from the contract; undefined when no response was judged. */
  responseViolations: readonly Violation[] | undefined;
}

function textOf(body: string | Uint8Array, maxBytes: number): BodyText {
  // No UTF-16 unit takes more than 6 bytes as JSON: a response that short is kept as it is, not encoded and decoded again.
  if (typeof body === "string" && body.length * 6 <= maxBytes) return { text: body, truncated: false };
  return bodyText(typeof body === "string" ? Buffer.from(body) : body, maxBytes);
}

export function journalEntryOf(call: SendCall, facts: EntryFacts, journalBodyBytes: number): JournalEntry {
  const { notes, sent } = facts;
  const requestBody = call.body === undefined ? undefined : bodyText(call.body, journalBodyBytes);
  const responseBody = sent === undefined ? undefined : textOf(sent.body, journalBodyBytes);
  return {
    id: `req_${randomUUID()}`,
    at: new Date(call.arrivedAt).toISOString(),
    method: call.method,
    path: call.path,
    status: sent?.status ?? 0,
    error_code: (notes.error?.code ?? null) as ErrorCode | null,
    error_message: notes.error?.message ?? null,
    violations: (notes.violations ?? notes.error?.violations ?? []).map(boundedViolation),
    fault: notes.fault ?? null,
    message_id: notes.messageId ?? null,
    duration_ms: Math.round((performance.now() - call.startedAt) * 1000) / 1000,
    api_key_hint: notes.apiKey === undefined ? null : apiKeyHint(notes.apiKey),
    to: notes.to ?? null,
    template_id: notes.templateId ?? null,
    response_violations: facts.responseViolations === undefined ? null : [...facts.responseViolations],
    request: {
      headers: requestHeadersOf(call.rawHeaders),
      // null: a body was sent but not read (over body_limit, undecodable, cut off, or a method that takes none).
      body: requestBody?.text ?? (call.hadBody ? null : ""),
      body_truncated: requestBody?.truncated ?? false,
    },
    response:
      sent === undefined || responseBody === undefined
        ? null
        : { status: sent.status, headers: { ...sent.headers }, body: responseBody.text, body_truncated: responseBody.truncated },
    client_gone: facts.clientGone,
    idempotent_replay: notes.idempotentReplay ?? false,
    ...(notes.sandbox !== undefined && notes.sandbox !== DEFAULT_SANDBOX && { sandbox: notes.sandbox }),
  };
}
