// accessibility: images with alt, a document's lang, links whose text says where they go.

import { describe, expect, it } from "vitest";
import { checkMessage, type MessageCheck } from "../../../src/message-checks/index.js";

function accessibility(html: string | null): MessageCheck {
  const check = checkMessage({ subject: "Hi", html, text: "Hi" }).checks.find((candidate) => candidate.name === "accessibility");
  if (check === undefined) throw new Error("no accessibility check");
  return check;
}

describe("accessibility", () => {
  it('fails an image without alt, at its line; alt="" (decorative) passes', () => {
    const html = '<html lang="en"><body>\n<img src="https://a.test/spacer.gif" alt="">\n<img src="https://a.test/logo.png" width="120">\n</body></html>';
    const check = accessibility(html);
    expect(check.status).toBe("fail");
    expect(check.findings).toEqual([
      expect.objectContaining({ severity: "fail", part: "html", line: 3, element: '<img src="https://a.test/logo.png" width="120">' }),
    ]);
  });

  it("warns of an <html> without lang, and judges no lang in a fragment that has no <html>", () => {
    expect(accessibility("<html>\n<body><p>Hi</p></body></html>").findings).toEqual([expect.objectContaining({ severity: "warn", line: 1 })]);
    expect(accessibility('<html lang=" ">x</html>').status).toBe("warn");
    expect(accessibility("<p>Hi</p>").status).toBe("pass");
  });

  it.each([["click here"], ["Here"], ["Read more…"], ["more"], ["link"], [""]])("warns of link text that says nothing: %j", (text) => {
    const check = accessibility(`<p>Hi</p>\n<a href="https://a.test/">${text}</a>`);
    expect(check.findings).toEqual([expect.objectContaining({ severity: "warn", part: "html", line: 2 })]);
  });

  it("reads a link's text from its words, its images' alt and its aria-label", () => {
    const html = [
      '<a href="https://a.test/1">Reset your password</a>',
      '<a href="https://a.test/2"><img src="https://a.test/logo.png" alt="Acme home"></a>',
      '<a href="https://a.test/3" aria-label="Read the full issue">more</a>',
      '<a name="top"></a>',
    ].join("\n");
    expect(accessibility(`<html lang="en">${html}</html>`)).toMatchObject({ status: "pass", findings: [] });
  });
});
