// The shapes of the message checks: what a check is given, what it finds and what it says of it.

/** Every named check of a message (interface section 17), in the order they are shown; `checkMessage` gives all but `spam`, which needs a spamd. */
export const MESSAGE_CHECK_NAMES = ["html_support", "links", "spam", "size", "text_part", "placeholders", "accessibility"] as const;

export type MessageCheckName = (typeof MESSAGE_CHECK_NAMES)[number];

/** `off`: not run (spam without a spamd); `error`: the check itself broke on this message (its words say how). */
export type CheckStatus = "pass" | "warn" | "fail" | "off" | "error";

/** What a check looks at: a rendered message, as a captured message holds it. */
export interface MessageContent {
  subject: string;
  html: string | null;
  text: string | null;
}

/** One thing a check found, pointing at where it is. */
export interface MessageFinding {
  severity: "warn" | "fail";
  /** One line a tester reads. */
  message: string;
  part?: "subject" | "html" | "text";
  /** 1-based line in that part. */
  line?: number;
  /** A short excerpt of the element or declaration (at most 120 characters, printable-escaped). */
  element?: string;
  /** html_support: the caniemail slug, e.g. "css-display-flex". */
  feature?: string;
  /** links: the URL. */
  url?: string;
  /** html_support: per client family ("gmail", "outlook", "apple-mail", "yahoo", …) the % of its tested platforms that support the feature, 0-100. */
  support?: Record<string, number>;
}

export interface MessageCheck {
  name: MessageCheckName;
  status: CheckStatus;
  /** One line: what was checked and what came of it. */
  summary: string;
  /** At most `maxFindings`, failures first. */
  findings: MessageFinding[];
  /** Every finding, kept or not. */
  findings_total: number;
}

export interface MessageChecks {
  /** The worst of pass < warn < fail over the checks; `error` counts as warn, `off` not at all. */
  status: "pass" | "warn" | "fail";
  checks: MessageCheck[];
}

export interface MessageCheckOptions {
  /** Findings kept per check (default 50); `findings_total` counts all. */
  maxFindings?: number;
}
