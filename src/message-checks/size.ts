// The size check: the HTML part's bytes against the size past which Gmail clips a message and hides the rest behind "View entire message".

import { FindingList } from "./findings.js";
import type { MessageView } from "./message-view.js";
import type { MessageCheck } from "./types.js";

/** Gmail clips a message whose HTML is larger than 102 KB. */
export const GMAIL_CLIP_BYTES = 102 * 1024;
/** Past this share of the limit, a few more rows of data clip it: a warning. */
export const NEAR_CLIP_SHARE = 0.9;

const kilobytes = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KB`;

export function checkSize(view: MessageView, maxFindings: number): MessageCheck {
  const findings = new FindingList(maxFindings);
  const { html } = view.message;
  if (html === null) return findings.result("size", "no HTML part: nothing for Gmail to clip");
  const bytes = Buffer.byteLength(html, "utf8");
  const ofLimit = `${kilobytes(bytes)} of HTML against Gmail's clipping at ${kilobytes(GMAIL_CLIP_BYTES)}`;
  if (bytes > GMAIL_CLIP_BYTES) {
    findings.add({ severity: "fail", message: `${ofLimit}: Gmail shows the start and hides the rest behind "View entire message"`, part: "html" });
  } else if (bytes > GMAIL_CLIP_BYTES * NEAR_CLIP_SHARE) {
    findings.add({ severity: "warn", message: `${ofLimit}: within 10% of being clipped`, part: "html" });
  }
  return findings.result("size", ofLimit);
}
