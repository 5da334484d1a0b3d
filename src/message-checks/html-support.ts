// The html_support check: each HTML and CSS feature the message uses that some email clients do not fully support, per the caniemail database, with its first use.

import { readCaniemail } from "./caniemail-data.js";
import { MAJOR_FAMILIES } from "./client-support.js";
import { scanCss, type CssUse } from "./css-scan.js";
import { featuresOfCss } from "./css-uses.js";
import { buildFeatureIndex, type EmailFeature, type FeatureIndex } from "./feature-index.js";
import { evidence, FindingList, plural } from "./findings.js";
import { attributeOffset } from "./html-scan.js";
import { featuresOfElement } from "./html-uses.js";
import type { MessageView } from "./message-view.js";
import type { MessageCheck } from "./types.js";

interface SupportDatabase {
  index: FeatureIndex;
  /** `gmail` -> `Gmail`, as the database names each family. */
  familyNames: Readonly<Record<string, string>>;
  /** The date the database was last updated, as it says. */
  updated: string;
}

let database: SupportDatabase | undefined;

/**
 * The database, read and indexed on first use (~15 ms, see docs/message-checks.md) and then kept
 * for the life of the process: it is the package's data and never changes while it runs.
 */
function supportDatabase(): SupportDatabase {
  if (database === undefined) {
    const data = readCaniemail();
    database = { index: buildFeatureIndex(data), familyNames: data.nicenames.family, updated: data.last_update_date.slice(0, 10) };
  }
  return database;
}

/** A feature is reported once, at its first use: where, and what the element or declaration says. */
interface FirstUse {
  line: number;
  element: string;
}

export function checkHtmlSupport(view: MessageView, maxFindings: number): MessageCheck {
  const findings = new FindingList(maxFindings);
  const { index, familyNames, updated } = supportDatabase();
  const source = `caniemail data of ${updated}`;
  const html = view.message.html;
  if (html === null) return findings.result("html_support", `no HTML part to check (${source})`);
  const reported = new Set<string>();
  const report = (featureLists: readonly (readonly EmailFeature[])[], where: () => FirstUse): void => {
    for (const features of featureLists) {
      for (const feature of features) {
        if (reported.has(feature.slug)) continue;
        reported.add(feature.slug);
        const { support, severity } = feature.judgement;
        if (severity === undefined) continue;
        const { line, element } = where();
        findings.add({ severity, message: describeSupport(feature, familyNames), part: "html", line, element, feature: feature.slug, support });
      }
    }
  };
  const parsed = view.html;
  const tagAt = (offset: number): FirstUse => ({
    line: view.lineOf("html", offset),
    element: evidence(html.slice(offset, html.indexOf(">", offset) + 1 || undefined)),
  });
  if (parsed.doctype !== undefined) report([index.shapeless.get("doctype") ?? []], () => tagAt(parsed.doctype ?? 0));
  for (const offset of parsed.comments) report([index.shapeless.get("html comment") ?? []], () => tagAt(offset));
  // The same style attribute is parsed once: emails repeat a few styles on hundreds of elements (the bench's 100 KB
  // message: 766 style attributes, 4 distinct, 2.8 ms to parse each and 0.1 ms once each, of 5.5 ms for all its checks).
  const inlineStyles = new Map<string, CssUse[]>();
  for (const element of parsed.elements) {
    report(featuresOfElement(element, index), () => tagAt(element.start));
    const style = element.attributes.style;
    if (style === undefined) continue;
    let uses = inlineStyles.get(style);
    if (uses === undefined) {
      uses = scanCss(style);
      inlineStyles.set(style, uses);
    }
    for (const use of uses) {
      report(featuresOfCss(use, index), () => ({
        line: view.lineOf("html", attributeOffset(html, element, "style")) + use.line - 1,
        element: evidence(use.source),
      }));
    }
  }
  for (const sheet of parsed.styleSheets) {
    const firstLine = view.lineOf("html", sheet.start);
    for (const use of scanCss(sheet.css)) report(featuresOfCss(use, index), () => ({ line: firstLine + use.line - 1, element: evidence(use.source) }));
  }
  return findings.result("html_support", summarize(findings, source));
}

function summarize(findings: FindingList, source: string): string {
  const { total, failures } = findings;
  if (total === 0) return `every HTML and CSS feature used is supported by every email client tested (${source})`;
  const unsupported = failures === 0 ? "" : `, ${failures} of them by none of a major client's platforms`;
  return `${plural(total, "feature")} used that some email clients do not fully support${unsupported} (${source})`;
}

/** `display:grid: no support in Yahoo! Mail on any platform; elsewhere Gmail 25%, Outlook 33% and 12 more families`. */
export function describeSupport(feature: EmailFeature, familyNames: Readonly<Record<string, string>>): string {
  const lacking = Object.entries(feature.judgement.support)
    .filter(([, percent]) => percent < 100)
    .sort(([a], [b]) => majorFirst(a) - majorFirst(b));
  const name = (family: string): string => familyNames[family] ?? family;
  const isNone = (family: string, percent: number): boolean => percent === 0 && MAJOR_FAMILIES.includes(family);
  const none = lacking.filter(([family, percent]) => isNone(family, percent)).map(([family]) => name(family));
  const partly = lacking.filter(([family, percent]) => !isNone(family, percent)).map(([family, percent]) => `${name(family)} ${percent}%`);
  if (none.length === 0) return `${feature.title}: not fully supported: ${listed(partly)}`;
  const elsewhere = partly.length === 0 ? "" : `; elsewhere ${listed(partly)}`;
  return `${feature.title}: no support in ${listed(none)} on any platform${elsewhere}`;
}

const majorFirst = (family: string): number => {
  const rank = MAJOR_FAMILIES.indexOf(family);
  return rank === -1 ? MAJOR_FAMILIES.length : rank;
};

/** At most four names, then how many more. */
function listed(names: readonly string[]): string {
  const shown = names.slice(0, 4);
  const more = names.length - shown.length;
  if (more > 0) return `${shown.join(", ")} and ${plural(more, "more family", "more families")}`;
  return shown.length === 1 ? (shown[0] ?? "") : `${shown.slice(0, -1).join(", ")} and ${shown[shown.length - 1] ?? ""}`;
}
