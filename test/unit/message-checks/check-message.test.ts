// checkMessage as a whole: every check given, the worst status, findings capped, a check that throws kept apart, hostile messages bounded.

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { checkMessage, worstStatus, type MessageChecks, type MessageContent } from "../../../src/message-checks/index.js";

const NAMES = ["html_support", "links", "size", "text_part", "placeholders", "accessibility"];

const statusOf = (result: MessageChecks, name: string): string | undefined => result.checks.find((check) => check.name === name)?.status;

describe("checkMessage", () => {
  it("gives every check but spam, in order, and the worst status over them", () => {
    const result = checkMessage({ subject: "Hi", html: null, text: "Hello" });
    expect(result.checks.map((check) => check.name)).toEqual(NAMES);
    expect(result.status).toBe("pass");
    expect(checkMessage({ subject: "Hi {name}", html: null, text: "Hello" }).status).toBe("fail");
  });

  it("rates error as warn and off as nothing when it takes the worst", () => {
    expect(worstStatus([{ status: "pass" }, { status: "off" }])).toBe("pass");
    expect(worstStatus([{ status: "pass" }, { status: "error" }])).toBe("warn");
    expect(worstStatus([{ status: "error" }, { status: "fail" }, { status: "warn" }])).toBe("fail");
    expect(worstStatus([])).toBe("pass");
  });

  it("keeps maxFindings findings per check, failures first, and counts them all", () => {
    const html = `${'<a href="http://example.com/w">w</a>\n'.repeat(3)}${Array.from({ length: 10 }, (_, index) => `<a href="/relative/${index}">r</a>`).join("\n")}`;
    const links = checkMessage({ subject: "Hi", html, text: "x" }, { maxFindings: 4 }).checks.find((check) => check.name === "links");
    expect(links?.findings_total).toBe(11);
    expect(links?.findings.map((finding) => finding.severity)).toEqual(["fail", "fail", "fail", "fail"]);
  });

  it("gives a check that throws as error with its words, and every other check still", () => {
    // A message whose text cannot be read: the checks that read it break, the others judge the HTML.
    const message = {
      subject: "Hi",
      html: '<p><img src="https://a.test/x.png"></p>',
      get text(): string {
        throw new Error("the text was torn");
      },
    } as MessageContent;
    const result = checkMessage(message);
    expect(result.checks.map((check) => check.name)).toEqual(NAMES);
    for (const name of ["links", "text_part", "placeholders"]) {
      expect(result.checks.find((check) => check.name === name)).toMatchObject({
        status: "error",
        summary: "the check broke on this message: Error: the text was torn",
        findings: [],
      });
    }
    expect(statusOf(result, "accessibility")).toBe("fail");
    expect(statusOf(result, "size")).toBe("pass");
    expect(result.status).toBe("fail");
  });
});

describe("checkMessage on hostile messages", () => {
  const run = (html: string, text: string | null = "Hello"): MessageChecks => checkMessage({ subject: "Hi", html, text });

  it("judges a 900 KB message: clipped, every other check given", () => {
    const result = run(`<html lang="en"><p style="color: #333">${"word ".repeat(180_000)}</p></html>`);
    expect(statusOf(result, "size")).toBe("fail");
    expect(result.checks.every((check) => check.status !== "error")).toBe(true);
  });

  it("reads 100,000 nested elements and 100,000 nested CSS blocks without blowing the stack", () => {
    expect(run(`${"<div>".repeat(100_000)}<img src="https://a.test/x.png">`).checks.find((check) => check.name === "accessibility")).toMatchObject({
      status: "fail",
      findings_total: 1,
    });
    const css = run(`<style>${"a{".repeat(100_000)}position:fixed</style>`);
    expect(css.checks.every((check) => check.status !== "error")).toBe(true);
  });

  it("caps 100,000 bad links at the findings kept, counting each distinct URL", () => {
    const html = Array.from({ length: 100_000 }, (_, index) => `<a href="http://localhost/${index}">here</a>`).join("\n");
    const result = run(html);
    const links = result.checks.find((check) => check.name === "links");
    expect(links).toMatchObject({ status: "fail", findings_total: 100_000 });
    expect(links?.findings).toHaveLength(50);
    const accessibility = result.checks.find((check) => check.name === "accessibility");
    expect(accessibility).toMatchObject({ status: "warn", findings_total: 100_000 });
  });

  it("reads broken markup and scripts without breaking a check, findings capped", () => {
    const html = `<<p <a href='x <img src=/a.png alt<style>}}{{@media{{{</ </div></a>\n<script>var a = "<a href='{x}'>"; document.write(a)</script>`;
    const result = run(html.repeat(2000));
    expect(result.checks.every((check) => check.status !== "error")).toBe(true);
    expect(statusOf(result, "placeholders")).toBe("fail");
    expect(result.checks.every((check) => check.findings.length <= 50)).toBe(true);
  });

  it("cuts an excerpt to 120 printable characters", () => {
    const result = run(`<img src="https://a.test/x.png" title="${"\u001b[2J".repeat(200)}">`);
    const [finding] = result.checks.find((check) => check.name === "accessibility")?.findings ?? [];
    expect(finding?.element?.length).toBeLessThanOrEqual(120);
    expect(finding?.element).not.toContain("\u001b");
  });

  it("never throws, and every finding points inside its part (property)", () => {
    const fragment = fc.constantFrom(
      "<a href='{x}'>",
      "</a>",
      "<img src=x>",
      "<style>",
      "</style>",
      "a{display:flex;",
      "}",
      "<html lang=>",
      "<!--",
      "-->",
      "<!DOCTYPE html>",
      "\n",
      "http://localhost/",
      "{name}",
      "&amp;",
      "<script>",
      '"',
      "'",
      "<",
      ">",
    );
    const markup = fc.array(fc.oneof(fragment, fc.string({ maxLength: 8 })), { maxLength: 40 }).map((parts) => parts.join(""));
    fc.assert(
      fc.property(markup, fc.option(markup), markup, fc.integer({ min: 0, max: 5 }), (html, text, subject, maxFindings) => {
        const message = { subject, html, text };
        const result = checkMessage(message, { maxFindings });
        expect(result.checks.map((check) => check.name)).toEqual(NAMES);
        for (const check of result.checks) {
          expect(check.status).not.toBe("error");
          expect(check.findings.length).toBeLessThanOrEqual(maxFindings);
          expect(check.findings_total).toBeGreaterThanOrEqual(check.findings.length);
          for (const finding of check.findings) {
            if (finding.part === undefined || finding.line === undefined) continue;
            const lines = (message[finding.part] ?? "").split("\n").length;
            expect(finding.line).toBeGreaterThanOrEqual(1);
            expect(finding.line).toBeLessThanOrEqual(lines);
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});
