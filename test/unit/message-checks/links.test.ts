// links: every href and src of the HTML and every URL of the text is one a recipient can open.

import { describe, expect, it } from "vitest";
import { checkMessage, type MessageCheck, type MessageContent } from "../../../src/message-checks/index.js";

function links(message: Partial<MessageContent>): MessageCheck {
  const check = checkMessage({ subject: "Hi", html: null, text: null, ...message }).checks.find((candidate) => candidate.name === "links");
  if (check === undefined) throw new Error("no links check");
  return check;
}

describe("links", () => {
  it("fails a localhost link, pointing at its part, line and URL", () => {
    const html = ["<p>Welcome</p>", '<p><a class="button"', '   href="http://localhost:3000/login">Log in</a></p>'].join("\n");
    const check = links({ html });
    expect(check.status).toBe("fail");
    expect(check.findings).toEqual([
      expect.objectContaining({
        severity: "fail",
        part: "html",
        line: 3,
        url: "http://localhost:3000/login",
        element: expect.stringContaining('<a class="button"') as string,
      }),
    ]);
    expect(check.findings[0]?.message).toContain("localhost");
  });

  it.each([["http://127.0.0.1/x"], ["https://127.1/x"], ["http://0.0.0.0:8080/"], ["http://[::1]/"], ["https://app.localhost/reset"], ["http://LOCALHOST/"]])(
    "fails a loopback host: %s",
    (url) => {
      expect(links({ html: `<a href="${url}">go</a>` }).findings[0]).toMatchObject({ severity: "fail", url });
    },
  );

  it.each([
    ["/login", /relative/],
    ["//cdn.example.com/logo.png", /relative/],
    ["", /empty/],
    ["   ", /empty/],
    ["javascript:alert(1)", /javascript:/],
    ["https://app.example.com/reset?token={token}", /\{token\} was left unrendered/],
    ["{login_url}", /\{login_url\} was left unrendered/],
  ])("fails %j", (url, why) => {
    const [finding] = links({ html: `<img alt="" src="${url}">` }).findings;
    expect(finding).toMatchObject({ severity: "fail", part: "html", line: 1 });
    expect(finding?.message).toMatch(why);
  });

  it("warns of http and of schemes other than http(s) and mailto, and passes https, mailto and a fragment", () => {
    const html = [
      '<a href="http://example.com/">http</a>',
      '<a href="tel:+15550100">call</a>',
      '<a href="https://example.com/">https</a>',
      '<a href="mailto:help@example.com">mail</a>',
      '<a href="#top">top</a>',
    ].join("\n");
    const check = links({ html });
    expect(check.status).toBe("warn");
    expect(check.findings.map((finding) => [finding.severity, finding.line, finding.url])).toEqual([
      ["warn", 1, "http://example.com/"],
      ["warn", 2, "tel:+15550100"],
    ]);
  });

  it("checks the URLs of the text part, with their lines", () => {
    const check = links({ text: "Hi Ada,\n\nReset it here: http://localhost/reset?t={token}.\n" });
    expect(check.findings).toEqual([expect.objectContaining({ severity: "fail", part: "text", line: 3, url: "http://localhost/reset?t={token}" })]);
  });

  it("reads entity-encoded URLs as a client does", () => {
    expect(links({ html: '<a href="https://a.test/?x=1&amp;y=2">x</a>' }).status).toBe("pass");
  });

  it("judges each URL once per part, at its first use", () => {
    const check = links({ html: '<a href="http://localhost/">x</a>\n'.repeat(5) });
    expect(check).toMatchObject({ findings_total: 1, findings: [expect.objectContaining({ line: 1 })] });
  });

  it("passes a message whose every URL is absolute, rendered and public", () => {
    const check = links({ html: '<a href="https://example.com/a">a</a><img alt="" src="https://cdn.example.com/b.png">', text: "https://example.com/a" });
    expect(check).toMatchObject({ status: "pass", findings: [] });
    expect(check.summary).toContain("3 distinct URLs");
  });
});
