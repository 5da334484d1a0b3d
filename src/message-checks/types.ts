// The shapes of the message checks: what a check is given, what it finds and what it says of it (the
// latter as admin.yaml states them for GET /_mock/messages/{id}/checks).

import type { components } from "../generated/admin-schemas.js";

type AdminSchemas = components["schemas"];

/** Every named check of a message (interface section 17), in the order they are shown; `checkMessage` gives all but `spam`, which needs a spamd. */
export const MESSAGE_CHECK_NAMES = ["html_support", "links", "spam", "size", "text_part", "placeholders", "accessibility"] as const;

export type MessageCheckName = (typeof MESSAGE_CHECK_NAMES)[number];

/** What a check looks at: a rendered message, as a captured message holds it. */
export interface MessageContent {
  subject: string;
  html: string | null;
  text: string | null;
}

/** One thing a check found, pointing at where it is: admin.yaml's CheckFinding. */
export type MessageFinding = AdminSchemas["CheckFinding"];

/** One named check's verdict (at most `maxFindings` findings, failures first; `findings_total` counts all): admin.yaml's MessageCheck. */
export type MessageCheck = AdminSchemas["MessageCheck"];

/** `off`: not run (spam without a spamd); `error`: the check itself broke on this message (its words say how). */
export type CheckStatus = MessageCheck["status"];

/** Every check of a message, and the worst of pass < warn < fail over them (`error` counts as warn, `off` not at all). */
export type MessageChecks = Omit<AdminSchemas["MessageChecks"], "message_id">;

export interface MessageCheckOptions {
  /** Findings kept per check (default 50); `findings_total` counts all. */
  maxFindings?: number;
}
