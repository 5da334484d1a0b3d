// placeholders: a `{name}` left unrendered in subject, HTML or text.

import { describe, expect, it } from "vitest";
import { checkMessage, type MessageCheck, type MessageContent } from "../../../src/message-checks/index.js";

function placeholders(message: MessageContent): MessageCheck {
  const check = checkMessage(message).checks.find((candidate) => candidate.name === "placeholders");
  if (check === undefined) throw new Error("no placeholders check");
  return check;
}

describe("placeholders", () => {
  it("fails each placeholder left, with its part and line", () => {
    const check = placeholders({
      subject: "Welcome, {name}!",
      html: "<p>Hello</p>\n<p>Your code: {code}</p>\n<p>{code} again</p>",
      text: "Hello\n\nYour code: {code}",
    });
    expect(check.status).toBe("fail");
    expect(check.findings.map(({ part, line, element, severity }) => ({ part, line, element, severity }))).toEqual([
      { part: "subject", line: 1, element: "{name}", severity: "fail" },
      { part: "html", line: 2, element: "{code}", severity: "fail" },
      { part: "text", line: 3, element: "{code}", severity: "fail" },
    ]);
    expect(check.findings[1]?.message).toBe("{code} left unrendered in the html (2 times)");
  });

  it("leaves braces that are not placeholders alone: CSS, spaced or non-name text", () => {
    const html = "<style>.card { padding: 0 } a{color:red}</style><p>{ name } {1abc} {}</p>";
    expect(placeholders({ subject: "Hi", html, text: "a {b-c} d" })).toMatchObject({ status: "pass", findings: [] });
  });

  it("finds the name shown by a template's {{name}} as well: the reader sees it as it stands", () => {
    expect(placeholders({ subject: "Use {{name}} in your template", html: null, text: "x" }).status).toBe("fail");
  });
});
