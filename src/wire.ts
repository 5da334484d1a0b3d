// The JSON objects sendmock sends and receives, as TypeScript types (snake_case, as on the wire).

import type { ErrorCode, Violation } from "./errors.js";

export type { ErrorCode, Violation };

export type ResponseShape = "a" | "b";

/** Any JSON value. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** Values for a template's placeholders: `{name}` is filled from `data.name`. */
export type TemplateData = Record<string, string | string[]>;

/** The body of `POST /send`. */
export interface SendRequest {
  to: string;
  template_id: string;
  data: TemplateData;
  cc?: string[];
  bcc?: string[];
  reply_to?: string;
  subject?: string;
}

export interface SendSuccessA {
  success: true;
  message_id: string;
  status: "queued";
}

export interface SendSuccessB {
  status: "success";
  message: string;
  email_id: string;
}

export type SendSuccess = SendSuccessA | SendSuccessB;

export interface SendErrorA {
  success: false;
  error: { code: ErrorCode; message: string };
}

export interface SendErrorB {
  status: "error";
  message: string;
}

export type SendError = SendErrorA | SendErrorB;

/** What a message went through after capture, in order (see domain/lifecycle.ts for what follows what). */
export const MESSAGE_EVENT_TYPES = [
  "message.sent",
  "message.deferred",
  "message.delivered",
  "message.bounced",
  "message.complained",
  "message.opened",
  "message.clicked",
] as const;

export type MessageEventType = (typeof MESSAGE_EVENT_TYPES)[number];

/** A message's latest state: `queued` at capture, then the state its latest event leads to. */
export const MESSAGE_STATUSES = ["queued", "sent", "deferred", "delivered", "bounced", "complained", "opened", "clicked"] as const;

export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

/** One lifecycle event of a captured message; `at` is on the mock's clock. */
export interface MessageEvent {
  type: MessageEventType;
  at: string;
  /** On `message.bounced` only. */
  bounce_type?: "hard" | "soft";
  /** On `message.clicked` only: the first of the message's `links`, null when it has none. */
  link?: string | null;
}

/** What happens to a message after capture; see the table in docs/delivery-events.md. */
export const OUTCOMES = ["delivered", "bounced", "soft_bounced", "deferred", "complained", "opened", "clicked"] as const;

export type Outcome = (typeof OUTCOMES)[number];

/** An email the mock would have sent, as the inspection API shows it. */
export interface CapturedMessage {
  id: string;
  /** `queued` at capture; each lifecycle event moves it on. */
  status: MessageStatus;
  /** The lifecycle events so far, oldest first. */
  events: MessageEvent[];
  created_at: string;
  to: string;
  cc: string[];
  bcc: string[];
  reply_to: string | null;
  template_id: string;
  subject: string;
  html: string | null;
  text: string | null;
  data: TemplateData;
  warnings: string[];
  /** Every distinct http(s) URL of the html, in order, then those found only in the text. */
  links: string[];
  /** The last 4 characters of the API key that sent it; keys are never kept whole. */
  api_key_hint: string;
  /** The sandbox it was captured in; absent for the default sandbox. */
  sandbox?: string;
}

/** Why a message came close to what a wait waited for. */
export type NearMissKind = "other_sandbox" | "same_recipient" | "close_recipient" | "captured" | "refused";

/** One thing that came close to what a wait waited for: a message, or a send that was refused. */
export interface NearMiss {
  kind: NearMissKind;
  /** One line saying what it is and how it departs from what was waited for. */
  description: string;
  /** The message, for every kind but `refused`. */
  message_id?: string;
  /** The sandbox holding the message of an `other_sandbox` near miss; absent for the default sandbox. */
  sandbox?: string;
  /** The journal entry of a `refused` send. */
  request_id?: string;
}

/** A `wait_ms` that ran out: the words a library wait's WaitTimeoutError says, and its near misses. */
export interface WaitTimedOut {
  message: string;
  waited_ms: number;
  near_misses: NearMiss[];
}

export interface MessageList {
  messages: CapturedMessage[];
  /** Every match, whatever `limit` cut. */
  total: number;
  /** Present (true) when the page stopped at `max_page_bytes` before `limit`. */
  truncated?: true;
  /** Present when a `wait_ms` ran out with nothing matching: what it waited for, and what came closest. */
  timed_out?: WaitTimedOut;
}

/** One request to `POST /send` and what became of it. */
export interface JournalEntry {
  id: string;
  at: string;
  method: string;
  path: string;
  status: number;
  error_code: ErrorCode | null;
  error_message: string | null;
  violations: Violation[];
  fault: string | null;
  message_id: string | null;
  duration_ms: number;
  api_key_hint: string | null;
  to: string | null;
  template_id: string | null;
  /** How a `respond` fault's response departs from the contract (empty when it conforms); null when no response was judged. */
  response_violations: Violation[] | null;
  request: JournalRequest;
  /** The response as sent; null when none was (a disconnect or timeout fault, a client gone first). */
  response: JournalResponse | null;
  /** True when the client closed the connection before its response was written. */
  client_gone: boolean;
  /** True when the response was the one kept for the request's `Idempotency-Key`, sent again: nothing was captured. */
  idempotent_replay: boolean;
  /** The sandbox the request went to, or that a request refused before the sandbox step names; absent for the default sandbox (and for a foreign Host). */
  sandbox?: string;
}

/** A request to POST /send as received: secrets masked, the body as text up to `journal_body_bytes` (64 KB). */
export interface JournalRequest {
  /** By lower-case name; `authorization` as `Bearer …` and its last 4 characters. */
  headers: Record<string, string>;
  /** null when a body was sent but could not be read (over body_limit, undecodable, cut off). */
  body: string | null;
  body_truncated: boolean;
}

/** A response as written to the client, the body as text up to `journal_body_bytes` (64 KB). */
export interface JournalResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  body_truncated: boolean;
}

export interface JournalList {
  requests: JournalEntry[];
  total: number;
  /** Present (true) when the page stopped at `max_page_bytes` before `limit`. */
  truncated?: true;
}

export interface TemplateSummary {
  id: string;
  file: string;
  ok: boolean;
  /** Why the file could not be loaded (`ok` false), or why the folder cannot be read now while the version loaded before is served (`ok` true); else null. */
  error: string | null;
  subject: string | null;
  description: string | null;
  placeholders: string[];
  has_html: boolean;
  has_text: boolean;
  sample_data: TemplateData | null;
}

export interface TemplateDetail extends TemplateSummary {
  html: string | null;
  text: string | null;
}

export interface TemplateList {
  folder: string;
  templates: TemplateSummary[];
}

export interface RateLimitSettings {
  requests: number;
  per_seconds: number;
  burst?: number;
}

/** `GET /_mock/config`: the effective settings (secrets only as hints). */
export interface ConfigView {
  host: string;
  port: number;
  templates: string;
  response_shape: ResponseShape;
  /** Hints of the accepted keys; null when any non-empty key is accepted. */
  api_keys: string[] | null;
  strict_data: boolean;
  rate_limit: RateLimitSettings | null;
  capacity: number;
  body_limit: string;
  status_codes: Partial<Record<ErrorCode, number>>;
  seed: number | null;
  allow_fault_header: boolean;
  allow_magic_recipients: boolean;
  admin_token_set: boolean;
  allow_open_admin: boolean;
  cors_origins: string[];
  captured_messages: number;
  dropped_messages: number;
  /** Total kept for messages and journal; past it the oldest go. */
  max_bytes: number;
  /** UTF-8 bytes of the captured messages' JSON now. */
  captured_bytes: number;
}

/** `PATCH /_mock/config`: the settings that may change at run time. */
export interface ConfigPatch {
  response_shape?: ResponseShape;
  strict_data?: boolean;
  rate_limit?: RateLimitSettings | null;
}

export const FAULT_KINDS = [
  "invalid_recipient",
  "invalid_template_id",
  "missing_template_data",
  "rate_limit",
  "server_error",
  "latency",
  "timeout",
  "disconnect",
  "lost_answer",
  "malformed_response",
  "respond",
] as const;

export type FaultKind = (typeof FAULT_KINDS)[number];

/** A fault rule as written in the config file or posted to `/_mock/faults`. */
export interface FaultRuleInput {
  fault: FaultKind;
  match?: { to?: string; template_id?: string; api_key?: string };
  times?: number;
  probability?: number;
  /** `server_error`: 500, 502, 503 or 504; `respond` (required): the status to respond with, 200-599. */
  status?: number;
  /** `rate_limit` (default 1) and `server_error` (default none): the `Retry-After` in seconds. */
  retry_after_s?: number;
  delay_ms?: number;
  /** `respond` only: the response's headers, as given. */
  headers?: Record<string, string>;
  /** `respond` only: the response's body; a string is sent as it is, any other JSON value as JSON. */
  body?: Exclude<JsonValue, null>;
}

/** A fault rule as the mock keeps it: `match.api_key` only as a hint, `times` as what is left. */
/** What a rule of any kind (fault or outcome) shows: `match.api_key` only as a hint, `times` as what is left. */
export interface RuleCommon {
  id: string;
  match: { to: string | null; template_id: string | null };
  /** Hint of `match.api_key`: the rule keeps only a digest of the key. */
  api_key_hint: string | null;
  /** Applications left before the rule disappears; null for no limit. */
  times: number | null;
  probability: number;
  /** `config` for the rules of the config file (restored by reset), `api` for the added ones. */
  source: "config" | "api";
  created_at: string;
  /** In a list without a sandbox, the sandbox it belongs to; absent for the default sandbox's. */
  sandbox?: string;
}

export interface FaultRule extends RuleCommon {
  fault: FaultKind;
  status: number | null;
  retry_after_s: number | null;
  delay_ms: number | null;
  /** A `respond` rule's headers (`{}` when it gives none); null for the other kinds. */
  headers: Record<string, string> | null;
  /** A `respond` rule's body; null when it has none, and for the other kinds. */
  body: JsonValue | null;
}

export interface FaultList {
  faults: FaultRule[];
}

/** An outcome rule as written in the config file or posted to `/_mock/outcomes`. */
export interface OutcomeRuleInput {
  outcome: Outcome;
  match?: { to?: string; template_id?: string; api_key?: string };
  times?: number;
  probability?: number;
}

/** An outcome rule as the mock keeps it. */
export interface OutcomeRule extends RuleCommon {
  outcome: Outcome;
}

export interface OutcomeList {
  outcomes: OutcomeRule[];
}

/** `GET /_mock/sandboxes`: the names in use, sorted (the default sandbox aside), and their bound. */
export interface SandboxList {
  sandboxes: string[];
  max_sandboxes: number;
}

/** `GET /_mock/clock`: the mock's time, and how far it is ahead of the real time. */
export interface ClockView {
  now: string;
  offset_ms: number;
}

/** `POST /_mock/clock`. */
export interface ClockAdvance {
  advance_ms: number;
}

/** `POST /_mock/messages/{id}/events`. */
export interface EventInput {
  type: MessageEventType;
}

/** A webhook as written in the config file or posted to `/_mock/webhooks`. */
export interface WebhookInput {
  url: string;
  /** Event types it receives; all of them when left out. */
  events?: MessageEventType[];
  /** `whsec_` + base64; generated when left out. */
  secret?: string;
  /** Sends each event twice with one `webhook-id`, for testing idempotent receivers. */
  duplicate?: boolean;
}

/** A webhook in force; a 410 response sets `enabled` to false. */
export interface Webhook {
  id: string;
  url: string;
  events: MessageEventType[];
  secret: string;
  duplicate: boolean;
  enabled: boolean;
  /** In a list without a sandbox, the sandbox it belongs to; absent for the default sandbox's. */
  sandbox?: string;
}

export interface WebhookList {
  webhooks: Webhook[];
}

/** One attempt to deliver an event to a webhook. */
export interface WebhookDelivery {
  id: string;
  webhook_id: string;
  /** The `webhook-id` header: one per event, the same on every attempt. */
  event_id: string;
  event_type: MessageEventType;
  message_id: string;
  /** 1 for the first attempt, then one more for each retry or replay. */
  attempt: number;
  /** The receiver's HTTP status; null when it could not be reached or did not respond in time. */
  status: number | null;
  error: string | null;
  duration_ms: number;
  /** When the attempt was made, on the mock's clock. */
  at: string;
  /** When the next attempt falls due, on the mock's clock; null when none will be made. */
  next_attempt_at: string | null;
  /** In a list without a sandbox, the sandbox it belongs to; absent for the default sandbox's. */
  sandbox?: string;
}

export interface WebhookDeliveryList {
  deliveries: WebhookDelivery[];
}

/** The body of a webhook delivery (`webhooks` in openapi/send.yaml). */
export interface WebhookPayload {
  type: MessageEventType;
  /** The event's time on the mock's clock. */
  timestamp: string;
  data: {
    message_id: string;
    to: string;
    template_id: string;
    subject: string;
    status: MessageStatus;
    bounce_type?: "hard" | "soft";
    link?: string | null;
  };
}
