// The links check: every link and image URL of the HTML (href, src) and every URL of the text is one a recipient can open: absolute, http(s) or mailto, rendered, not on the sender's own machine.

import { findTextUrls } from "../domain/links.js";
import { PLACEHOLDER_SOURCE } from "../domain/render.js";
import { evidence, FindingList, plural } from "./findings.js";
import { attributeOffset } from "./html-scan.js";
import type { MessageView, PartName } from "./message-view.js";
import type { MessageCheck } from "./types.js";

/** The attributes that hold a URL a recipient's client opens or loads. */
const URL_ATTRIBUTES = ["href", "src"] as const;
const PLACEHOLDER = new RegExp(PLACEHOLDER_SOURCE);
const SCHEME = /^([a-z][a-z0-9+.-]*):/i;

interface Verdict {
  severity: "fail" | "warn";
  why: string;
}

/**
 * What is wrong with `raw` as a link in an email, or undefined. A fragment (`#top`) is a link
 * within the message (html_support says which clients follow it); any scheme but http(s) and
 * mailto (tel:, cid:, data:) is a warning, as some clients open it and some do not.
 */
export function judgeUrl(raw: string): Verdict | undefined {
  const url = raw.trim();
  if (url === "") return { severity: "fail", why: "an empty URL: the link goes nowhere" };
  const placeholder = PLACEHOLDER.exec(url);
  if (placeholder !== null) return { severity: "fail", why: `the placeholder ${placeholder[0]} was left unrendered in the URL` };
  if (url.startsWith("#")) return undefined;
  const scheme = SCHEME.exec(url)?.[1]?.toLowerCase();
  if (scheme === undefined) return { severity: "fail", why: "a relative URL: an email has no page to resolve it against" };
  if (scheme === "javascript" || scheme === "vbscript") return { severity: "fail", why: `a ${scheme}: URL, which no email client runs` };
  if (scheme === "mailto") return undefined;
  if (scheme !== "http" && scheme !== "https") return { severity: "warn", why: `a ${scheme}: URL: only http(s) and mailto links open in every client` };
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return { severity: "fail", why: "not a valid URL" };
  }
  if (isLoopback(host)) return { severity: "fail", why: `its host ${host} is the recipient's own machine, not the sender's server` };
  if (scheme === "http") return { severity: "warn", why: "http, not https: the link is sent in clear and many clients warn of it" };
  return undefined;
}

/** localhost, *.localhost, 127.0.0.0/8, 0.0.0.0 and ::1, as the URL parser writes them (`127.1` is `127.0.0.1` by then). */
function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, "");
  return (
    bare === "localhost" ||
    bare.endsWith(".localhost") ||
    /^127\.\d+\.\d+\.\d+$/.test(bare) ||
    bare === "0.0.0.0" ||
    bare === "::1" ||
    bare === "::" ||
    /^::ffff:(?:127\.|7f)/.test(bare)
  );
}

export function checkLinks(view: MessageView, maxFindings: number): MessageCheck {
  const findings = new FindingList(maxFindings);
  const { html, text } = view.message;
  /** Each URL is judged once per part, at its first use: a footer link repeated 100 times is one finding. */
  const judged = new Set<string>();
  let checked = 0;
  const judge = (part: PartName, url: string, where: () => { line: number; element: string }): void => {
    const key = `${part} ${url}`;
    if (judged.has(key)) return;
    judged.add(key);
    checked += 1;
    const verdict = judgeUrl(url);
    if (verdict === undefined) return;
    const { line, element } = where();
    findings.add({ severity: verdict.severity, message: `${evidence(url) || '""'}: ${verdict.why}`, part, line, element, url });
  };
  if (html !== null) {
    for (const element of view.html.elements) {
      for (const attribute of URL_ATTRIBUTES) {
        const url = element.attributes[attribute];
        if (url === undefined) continue;
        judge("html", url, () => ({
          line: view.lineOf("html", attributeOffset(html, element, attribute)),
          element: evidence(html.slice(element.start, element.end + 1)),
        }));
      }
    }
  }
  for (const { url, index } of findTextUrls(text ?? "")) judge("text", url, () => ({ line: view.lineOf("text", index), element: evidence(url) }));
  const problems = findings.total === 0 ? "each absolute, rendered and public" : `${findings.failures} fail, ${findings.total - findings.failures} warn`;
  return findings.result("links", `${plural(checked, "distinct URL")} (links and images of the HTML, URLs of the text): ${problems}`);
}
