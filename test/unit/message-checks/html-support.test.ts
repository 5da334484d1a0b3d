// html_support: each HTML and CSS feature the message uses that clients lack, at its first use, judged against the caniemail package's own data.

import { describe, expect, it } from "vitest";
import { checkMessage, type MessageFinding, type MessageCheck } from "../../../src/message-checks/index.js";
import { CANIEMAIL, caniemailFeature, expectedSeverity, expectedSupport } from "../../support/caniemail.js";

function htmlSupport(html: string | null): MessageCheck {
  const check = checkMessage({ subject: "Hi", html, text: "Hi" }, { maxFindings: 500 }).checks.find((candidate) => candidate.name === "html_support");
  if (check === undefined) throw new Error("no html_support check");
  return check;
}

const findingOf = (check: MessageCheck, slug: string): MessageFinding | undefined => check.findings.find((finding) => finding.feature === slug);

/** The finding the data calls for, or none when every client tested supports the feature. */
function expectDataSays(check: MessageCheck, slug: string, line: number): void {
  const severity = expectedSeverity(slug);
  const finding = findingOf(check, slug);
  if (severity === undefined) {
    expect(finding, `${slug} is supported everywhere the data tested`).toBeUndefined();
    return;
  }
  expect(finding, `a finding for ${slug}`).toMatchObject({ severity, part: "html", line, feature: slug, support: expectedSupport(slug) });
  expect(finding?.message).toContain(caniemailFeature(slug).title.trim());
}

const PLANTED = [
  "<!DOCTYPE html>",
  '<html lang="en">',
  "<head><style>",
  ".banner { position: fixed; top: 0 }",
  "</style></head>",
  "<body>",
  '<div style="color: #333;',
  '  display: flex">',
  '<video src="https://cdn.example.com/intro.mp4"></video>',
  '<div style="display:flex">again</div>',
  "</div></body></html>",
].join("\n");

describe("html_support", () => {
  it("finds an unsupported CSS property in a style sheet, with its line and each family's support as the data gives it", () => {
    const check = htmlSupport(PLANTED);
    expectDataSays(check, "css-position", 4);
    expect(findingOf(check, "css-position")?.element).toBe("position: fixed");
    expect(expectedSeverity("css-position")).toBe("fail");
    expect(check.status).toBe("fail");
  });

  it("finds display:flex in a style attribute on the line of its declaration, once, at its first use", () => {
    const check = htmlSupport(PLANTED);
    expectDataSays(check, "css-display-flex", 8);
    expect(check.findings.filter((finding) => finding.feature === "css-display-flex")).toHaveLength(1);
  });

  it("finds an element the data lists (<video>) with an excerpt of its start tag", () => {
    const check = htmlSupport(PLANTED);
    expectDataSays(check, "html-video", 9);
    expect(findingOf(check, "html-video")?.element).toBe('<video src="https://cdn.example.com/intro.mp4">');
  });

  it("fails only when a major family supports a feature on none of its platforms, and names it", () => {
    const check = htmlSupport(PLANTED);
    for (const finding of check.findings) {
      const support = finding.support ?? {};
      const majorAtZero = ["gmail", "outlook", "apple-mail", "yahoo"].filter((family) => support[family] === 0);
      expect(finding.severity, finding.feature).toBe(majorAtZero.length > 0 ? "fail" : "warn");
      if (majorAtZero.includes("gmail")) expect(finding.message).toMatch(/no support in .*Gmail/);
    }
  });

  it.each([
    ["css-at-media-prefers-color-scheme", "<style>\n@media (prefers-color-scheme: dark) { p { color: white } }</style>", 2],
    ["css-at-media", "<style>\n@media (max-width: 600px) { p { color: white } }</style>", 2],
    ["css-pseudo-class-hover", "<style>\na:hover { color: red }</style>", 2],
    ["css-pseudo-element-before", "<style>\np::before { content: 'x' }</style>", 2],
    ["css-selector-child", "<style>\nul > li { color: red }</style>", 2],
    ["css-linear-gradient", '<p style="background-image: linear-gradient(red, blue)">x</p>', 1],
    ["css-unit-rem", '<p style="font-size: 1.2rem">x</p>', 1],
    ["css-important", '<p style="color: red !important">x</p>', 1],
    ["css-variables", "<style>\n:root { --brand: red } p { color: var(--brand) }</style>", 2],
    ["css-box-shadow", '<p style="box-shadow: 0 0 2px #000">x</p>', 1],
    ["css-margin", '<p style="margin-left: 4px">x</p>', 1],
    ["html-form", '<p>x</p>\n<form><input type="checkbox"></form>', 2],
    ["html-input-checkbox", '<p>x</p>\n<form><input type="checkbox"></form>', 2],
    ["html-h1-h6", "<h3>x</h3>", 1],
    ["html-semantics", "<p>x</p>\n<article>x</article>", 2],
    ["html-srcset", '<img alt="" src="https://a.test/a.png" srcset="https://a.test/b.png 2x">', 1],
    ["html-anchor-links", '<a href="#top">top</a>', 1],
    ["html-mailto-links", '<a href="mailto:help@example.com">help</a>', 1],
    ["html-comments", "<p>x</p>\n<!-- a note -->", 2],
    ["image-webp", '<img alt="" src="https://a.test/photo.webp?v=2">', 1],
    ["image-jpg", '<img alt="" src="https://a.test/photo.jpeg">', 1],
    ["image-base64", '<img alt="" src="data:image/png;base64,iVBORw0KGgo=">', 1],
  ])("reads the feature %s off the data's slug and title, and reports it as the data says", (slug, html, line) => {
    expectDataSays(htmlSupport(html), slug, line);
  });

  it("reports nothing of features every client tested supports", () => {
    const supported = CANIEMAIL.data.filter((feature) => expectedSeverity(feature.slug) === undefined).map((feature) => feature.slug);
    expect(supported).toEqual(expect.arrayContaining(["html-p", "html-table"]));
    const check = htmlSupport("<table><tr><td><p>Hello</p></td></tr></table>");
    expect(check.findings).toEqual([]);
    expect(check.status).toBe("pass");
  });

  it("says which data it judged by: the caniemail package installed", () => {
    expect(htmlSupport("<p>x</p>").summary).toContain(`caniemail data of ${CANIEMAIL.last_update_date.slice(0, 10)}`);
  });

  it("passes a message without an HTML part", () => {
    expect(htmlSupport(null)).toMatchObject({ status: "pass", findings: [], findings_total: 0 });
  });
});
