// The named checks of a rendered message (interface section 17), each a pure function of the message: what the inspection API, `sendmock lint`, the page and the test matchers all run.

import { checkAccessibility } from "./accessibility.js";
import { DEFAULT_MAX_FINDINGS } from "./findings.js";
import { checkHtmlSupport } from "./html-support.js";
import { checkLinks } from "./links.js";
import { MessageView } from "./message-view.js";
import { checkPlaceholders } from "./placeholders.js";
import { checkSize } from "./size.js";
import { checkTextPart } from "./text-part.js";
import { MESSAGE_CHECK_NAMES, type MessageCheckName, type MessageCheckOptions, type MessageCheck, type MessageChecks, type MessageContent } from "./types.js";

export type { MessageCheckName, MessageCheckOptions, CheckStatus, MessageFinding, MessageCheck, MessageChecks, MessageContent } from "./types.js";
export { MESSAGE_CHECK_NAMES } from "./types.js";
export { DEFAULT_MAX_FINDINGS } from "./findings.js";
export { GMAIL_CLIP_BYTES } from "./size.js";

type Check = (view: MessageView, maxFindings: number) => MessageCheck;

/** Every check but spam (it needs a spamd over TCP, so the caller adds it), in the order they are shown. */
const CHECKS: readonly (readonly [Exclude<MessageCheckName, "spam">, Check])[] = [
  ["html_support", checkHtmlSupport],
  ["links", checkLinks],
  ["size", checkSize],
  ["text_part", checkTextPart],
  ["placeholders", checkPlaceholders],
  ["accessibility", checkAccessibility],
];

/**
 * Every check but spam on `message`. A check that throws is given as `error` with its words, the
 * others still run: no message can make the call itself throw.
 *
 * @example checkMessage({ subject: "Hi", html: null, text: "Hello" }).status // "pass"
 */
export function checkMessage(message: MessageContent, options: MessageCheckOptions = {}): MessageChecks {
  return checkMessageTimed(message, options).result;
}

/** `checkMessage`, with the milliseconds each check took, for a report that shows real times (`sendmock lint --junit`). */
export function checkMessageTimed(
  message: MessageContent,
  options: MessageCheckOptions = {},
): { result: MessageChecks; durationsMs: Map<MessageCheckName, number> } {
  const view = new MessageView(message);
  const maxFindings = options.maxFindings ?? DEFAULT_MAX_FINDINGS;
  const durationsMs = new Map<MessageCheckName, number>();
  const checks = CHECKS.map(([name, check]) => {
    const started = performance.now();
    const result = runCheck(name, () => check(view, maxFindings));
    durationsMs.set(name, performance.now() - started);
    return result;
  });
  return { result: { status: worstStatus(checks), checks }, durationsMs };
}

function runCheck(name: MessageCheckName, run: () => MessageCheck): MessageCheck {
  try {
    return run();
  } catch (error) {
    const words = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    return { name, status: "error", summary: `the check broke on this message: ${words.split("\n")[0] ?? ""}`, findings: [], findings_total: 0 };
  }
}

const RANK = { pass: 0, warn: 1, fail: 2 } as const;

/** The worst of pass < warn < fail over `checks`; `error` counts as warn (something could not be judged), `off` not at all. */
export function worstStatus(checks: readonly Pick<MessageCheck, "status">[]): MessageChecks["status"] {
  let worst: MessageChecks["status"] = "pass";
  for (const { status } of checks) {
    const counted = status === "error" ? "warn" : status === "off" ? "pass" : status;
    if (RANK[counted] > RANK[worst]) worst = counted;
  }
  return worst;
}

/** `result` with `added` among its checks (spam, which the caller asks a spamd for), in the order they are shown, the status the worst of all. */
export function including(result: MessageChecks, added: MessageCheck): MessageChecks {
  const checks = [...result.checks, added].sort((a, b) => MESSAGE_CHECK_NAMES.indexOf(a.name) - MESSAGE_CHECK_NAMES.indexOf(b.name));
  return { status: worstStatus(checks), checks };
}
