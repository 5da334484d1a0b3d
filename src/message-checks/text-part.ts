// The text_part check: a plain-text part with words in it (some clients, filters and readers use only it), and holding the links the HTML has.

import { findTextUrls } from "../domain/links.js";
import { evidence, FindingList, plural } from "./findings.js";
import { attributeOffset } from "./html-scan.js";
import type { MessageView } from "./message-view.js";
import type { MessageCheck } from "./types.js";

export function checkTextPart(view: MessageView, maxFindings: number): MessageCheck {
  const findings = new FindingList(maxFindings);
  const { html, text } = view.message;
  if (text === null || text.trim() === "") {
    const missing = text === null ? "no plain-text part" : "the plain-text part is empty";
    findings.add({ severity: "fail", message: `${missing}: text-only clients, spam filters and screen readers that use it get nothing`, part: "text" });
    return findings.result("text_part", missing);
  }
  let links = 0;
  if (html !== null) {
    // A set, not text.includes per link: 100k links looked up that way in their 3.8 MB text took 50 s.
    const inText = new Set(findTextUrls(text).map(({ url }) => url));
    const seen = new Set<string>();
    for (const element of view.html.elements) {
      const href = element.attributes.href?.trim();
      if (element.name !== "a" || href === undefined || !/^https?:\/\//i.test(href) || seen.has(href)) continue;
      seen.add(href);
      links += 1;
      if (inText.has(href)) continue;
      findings.add({
        severity: "warn",
        message: `the HTML links to ${evidence(href)}, which the text part does not give`,
        part: "html",
        line: view.lineOf("html", attributeOffset(html, element, "href")),
        element: evidence(html.slice(element.start, element.end + 1)),
        url: href,
      });
    }
  }
  const words = text.trim().split(/\s+/).length;
  const held = links === 0 ? "" : `, holding ${links - findings.total} of the HTML's ${plural(links, "link")}`;
  return findings.result("text_part", `a plain-text part of ${plural(words, "word")}${held}`);
}
