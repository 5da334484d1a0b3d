// The JSON objects sendmock sends and receives, as TypeScript types (snake_case, as on the wire):
// the types generated from openapi/send.yaml and admin.yaml under the names the package exports,
// and only what the documents cannot say written here (the lists the code walks at run time, and
// where a type names more than the schema: which JSON a body is, which codes a map takes).

import type { ErrorCode, Violation } from "./errors.js";
import type { components as AdminApi } from "./generated/admin-schemas.js";
import type { components as SendApi } from "./generated/send-api-components.js";

type Admin = AdminApi["schemas"];
type Send = SendApi["schemas"];

export type { ErrorCode, Violation };

export type ResponseShape = Admin["ResponseShape"];

/** Any JSON value. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** Values for a template's placeholders: `{name}` is filled from `data.name`. */
export type TemplateData = Send["TemplateData"];

/** The body of `POST /send`. */
export type SendRequest = Send["SendRequest"];

export type SendSuccessA = Send["SendSuccessA"];
export type SendSuccessB = Send["SendSuccessB"];
export type SendSuccess = SendSuccessA | SendSuccessB;

export type SendErrorA = Send["ErrorResponseA"];
export type SendErrorB = Send["ErrorResponseB"];
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
export type MessageEvent = Admin["MessageEvent"];

/** What happens to a message after capture; see the table in docs/delivery-events.md. */
export const OUTCOMES = ["delivered", "bounced", "soft_bounced", "deferred", "complained", "opened", "clicked"] as const;

export type Outcome = (typeof OUTCOMES)[number];

/** An email the mock would have sent, as the inspection API shows it. */
export type CapturedMessage = Admin["CapturedMessage"];

/** One thing that came close to what a wait waited for: a message, or a send that was refused. */
export type NearMiss = Admin["NearMiss"];

/** Why a message came close to what a wait waited for. */
export type NearMissKind = NearMiss["kind"];

/** A `wait_ms` that ran out: the words a library wait's WaitTimeoutError says, and its near misses. */
export type WaitTimedOut = Admin["WaitTimedOut"];

export type MessageList = Admin["MessageList"];

/**
 * One request to `POST /send` and what became of it. Its violations are the ones sendmock found,
 * of which only `path` and `message` go on the wire.
 */
export type JournalEntry = Omit<Admin["JournalEntry"], "violations" | "response_violations"> & {
  violations: Violation[];
  /** How a `respond` fault's response departs from the contract (empty when it conforms); null when no response was judged. */
  response_violations: Violation[] | null;
};

/** A request to POST /send as received: secrets masked, the body as text up to `journal_body_bytes` (64 KB). */
export type JournalRequest = Admin["JournalRequest"];

/** A response as written to the client, the body as text up to `journal_body_bytes` (64 KB). */
export type JournalResponse = Admin["JournalResponse"];

export type JournalList = Omit<Admin["JournalList"], "requests"> & { requests: JournalEntry[] };

export type TemplateSummary = Admin["TemplateSummary"];
export type TemplateDetail = Admin["TemplateDetail"];
export type TemplateList = Admin["TemplateList"];

/** `rate_limit`: `requests` per `per_seconds`, in bursts of up to `burst` (`requests` when left out). */
export type RateLimitSettings = Admin["RateLimitSettings"];

/** `GET /_mock/config`: the effective settings (secrets only as hints). */
export type ConfigView = Omit<Admin["ConfigView"], "status_codes"> & {
  /** The schema takes any key (a code it does not know is refused in words); the type names the codes. */
  status_codes: Partial<Record<ErrorCode, number>>;
};

/** `PATCH /_mock/config`: the settings that may change at run time. */
export type ConfigPatch = Admin["ConfigPatch"];

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
export type FaultRuleInput = Omit<Admin["FaultRuleInput"], "body"> & {
  /** `respond` only: the response's body; a string is sent as it is, any other JSON value as JSON. */
  body?: Exclude<JsonValue, null>;
};

/** An outcome rule as the mock keeps it. */
export type OutcomeRule = Admin["OutcomeRule"];

/** What a rule of any kind (fault or outcome) shows: `match.api_key` only as a hint, `times` as what is left. */
export type RuleCommon = Omit<OutcomeRule, "outcome">;

/** A fault rule as the mock keeps it. */
export type FaultRule = Omit<Admin["FaultRule"], "body"> & {
  /** A `respond` rule's body; null when it has none, and for the other kinds. */
  body: JsonValue | null;
};

export type FaultList = Omit<Admin["FaultList"], "faults"> & { faults: FaultRule[] };

/** An outcome rule as written in the config file or posted to `/_mock/outcomes`. */
export type OutcomeRuleInput = Admin["OutcomeRuleInput"];

export type OutcomeList = Admin["OutcomeList"];

/** `GET /_mock/sandboxes`: the names in use, sorted (the default sandbox aside), and their bound. */
export type SandboxList = Admin["SandboxList"];

/** `GET /_mock/clock`: the mock's time, and how far it is ahead of the real time. */
export type ClockView = Admin["ClockView"];

/** `POST /_mock/clock`. */
export type ClockAdvance = Admin["ClockAdvance"];

/** `POST /_mock/messages/{id}/events`. */
export type EventInput = Admin["EventInput"];

/** A webhook as written in the config file or posted to `/_mock/webhooks`. */
export type WebhookInput = Admin["WebhookInput"];

/** A webhook in force; a 410 response sets `enabled` to false. */
export type Webhook = Admin["Webhook"];

export type WebhookList = Admin["WebhookList"];

/** One attempt to deliver an event to a webhook. */
export type WebhookDelivery = Admin["WebhookDelivery"];

export type WebhookDeliveryList = Admin["WebhookDeliveryList"];

/**
 * The body of a webhook delivery (`webhooks` in openapi/send.yaml): one type for the three
 * payloads the schema tells apart by `type`, a bounce's `bounce_type` and a click's `link` optional.
 */
export interface WebhookPayload {
  type: MessageEventType;
  /** The event's time on the mock's clock. */
  timestamp: string;
  data: Send["WebhookMessage"] & Pick<MessageEvent, "bounce_type" | "link">;
}
