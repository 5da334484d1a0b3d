// The accessibility check: what a screen reader needs of an email: images with alt text, the language of the document, links whose text says where they go.

import { evidence, FindingList, plural } from "./findings.js";
import type { MessageView } from "./message-view.js";
import type { MessageCheck } from "./types.js";

/** Link text that names no destination: read out of context (a screen reader's list of links), each says nothing. */
const VAGUE_LINK_TEXT: ReadonlySet<string> = new Set(["click here", "here", "read more", "more", "link"]);

/**
 * Images without `alt` fail (`alt=""` marks one as decorative, and passes). A document with an
 * `<html>` element and no `lang` on it warns; a fragment with no `<html>` is not judged, as the
 * client wraps it in a document of its own. A link whose text (or `aria-label`) is empty or vague warns.
 */
export function checkAccessibility(view: MessageView, maxFindings: number): MessageCheck {
  const findings = new FindingList(maxFindings);
  const { html } = view.message;
  if (html === null) return findings.result("accessibility", "no HTML part to check");
  const parsed = view.html;
  const where = (start: number, end: number): { part: "html"; line: number; element: string } => ({
    part: "html",
    line: view.lineOf("html", start),
    element: evidence(html.slice(start, end + 1)),
  });
  let images = 0;
  for (const element of parsed.elements) {
    if (element.name === "html" && (element.attributes.lang ?? "").trim() === "") {
      findings.add({ severity: "warn", message: "no lang on <html>: screen readers guess the language to read it in", ...where(element.start, element.end) });
    }
    if (element.name !== "img") continue;
    images += 1;
    if (element.attributes.alt === undefined) {
      findings.add({
        severity: "fail",
        message: "an image without alt: screen readers read its file name, and clients that block images show nothing",
        ...where(element.start, element.end),
      });
    }
  }
  let links = 0;
  for (const { element, text } of parsed.anchors) {
    if (element.attributes.href === undefined) continue;
    links += 1;
    const label = (element.attributes["aria-label"] ?? "").trim() || text;
    const spoken = label.toLowerCase().replace(/[\s.!?:…→»>]+$/u, "");
    if (spoken === "") findings.add({ severity: "warn", message: "a link with no text: a screen reader reads its URL", ...where(element.start, element.end) });
    else if (VAGUE_LINK_TEXT.has(spoken))
      findings.add({ severity: "warn", message: `link text "${evidence(label)}" says nothing of where the link goes`, ...where(element.start, element.end) });
  }
  const verdict = findings.total === 0 ? "nothing to fix" : `${findings.failures} fail, ${findings.total - findings.failures} warn`;
  return findings.result("accessibility", `${plural(images, "image")} and ${plural(links, "link")} checked: ${verdict}`);
}
