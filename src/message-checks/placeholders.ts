// The placeholders check: a `{name}` left in the rendered subject, HTML or text, which the recipient would read as it stands.

import { PLACEHOLDER_SOURCE } from "../domain/render.js";
import { FindingList, plural } from "./findings.js";
import type { MessageView, PartName } from "./message-view.js";
import type { MessageCheck } from "./types.js";

const PARTS: readonly PartName[] = ["subject", "html", "text"];

/**
 * Every `{name}` of sendmock's placeholder syntax still in the message: a value that held one (a
 * value is never expanded again), a template that wrote `{{name}}` to show braces, or a message
 * rendered by another service. Each name is one finding per part, at its first line.
 */
export function checkPlaceholders(view: MessageView, maxFindings: number): MessageCheck {
  const findings = new FindingList(maxFindings);
  for (const part of PARTS) {
    const content = view.message[part];
    if (content === null) continue;
    const first = new Map<string, { index: number; count: number }>();
    for (const match of content.matchAll(new RegExp(PLACEHOLDER_SOURCE, "g"))) {
      const seen = first.get(match[0]);
      if (seen === undefined) first.set(match[0], { index: match.index, count: 1 });
      else seen.count += 1;
    }
    for (const [placeholder, { index, count }] of first) {
      const times = count === 1 ? "" : ` (${count} times)`;
      const line = view.lineOf(part, index);
      findings.add({ severity: "fail", message: `${placeholder} left unrendered in the ${part}${times}`, part, line, element: placeholder });
    }
  }
  return findings.result(
    "placeholders",
    findings.total === 0 ? "no {placeholder} left in subject, HTML or text" : `${plural(findings.total, "placeholder")} left unrendered`,
  );
}
