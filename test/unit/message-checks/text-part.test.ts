// text_part: a plain-text part with words in it, holding the links of the HTML.

import { describe, expect, it } from "vitest";
import { checkMessage, type MessageCheck } from "../../../src/message-checks/index.js";

function textPart(html: string | null, text: string | null): MessageCheck {
  const check = checkMessage({ subject: "Hi", html, text }).checks.find((candidate) => candidate.name === "text_part");
  if (check === undefined) throw new Error("no text_part check");
  return check;
}

describe("text_part", () => {
  it("fails a message without a text part", () => {
    const check = textPart("<p>Hello</p>", null);
    expect(check).toMatchObject({ status: "fail", findings: [expect.objectContaining({ severity: "fail", part: "text" })] });
    expect(check.summary).toBe("no plain-text part");
  });

  it("fails an empty or whitespace-only text part", () => {
    expect(textPart("<p>Hello</p>", "").status).toBe("fail");
    expect(textPart("<p>Hello</p>", " \n\t ").summary).toBe("the plain-text part is empty");
  });

  it("warns of a link of the HTML that the text does not give, at its line", () => {
    const html = '<p><a href="https://a.test/one">one</a></p>\n<p><a href="https://a.test/two">two</a></p>';
    const check = textPart(html, "One: https://a.test/one.");
    expect(check.status).toBe("warn");
    expect(check.findings).toEqual([expect.objectContaining({ severity: "warn", part: "html", line: 2, url: "https://a.test/two" })]);
    expect(check.summary).toBe("a plain-text part of 2 words, holding 1 of the HTML's 2 links");
  });

  it("passes a text part that holds every link of the HTML", () => {
    expect(textPart('<a href="https://a.test/">a</a>', "Go: https://a.test/").status).toBe("pass");
  });
});
