// Link extraction from rendered html and text.

import { describe, it, expect } from "vitest";
import { extractLinks } from "../../src/domain/links.js";

describe("extractLinks", () => {
  it("takes URLs from href and src attributes and from bare html text, in order", () => {
    const html = `<img src="https://cdn.test/logo.png"><a href='https://a.test/one'>x</a> or visit https://b.test/two<br>`;
    expect(extractLinks(html, undefined)).toEqual(["https://cdn.test/logo.png", "https://a.test/one", "https://b.test/two"]);
  });

  it("decodes HTML entities in URLs", () => {
    const html = `<a href="https://a.test/reset?token=abc&amp;user=42&#x26;x=%20">reset</a>`;
    expect(extractLinks(html, undefined)).toEqual(["https://a.test/reset?token=abc&user=42&x=%20"]);
  });

  it("ends a URL at an encoded quote or angle bracket", () => {
    expect(extractLinks("&lt;https://a.test/x&gt; and &quot;https://b.test/y&quot;", undefined)).toEqual(["https://a.test/x", "https://b.test/y"]);
  });

  it("lists each URL once, html first, then those found only in the text", () => {
    const html = `<a href="https://a.test/">a</a> <a href="https://b.test/">b</a> https://a.test/`;
    const text = "https://c.test/ then https://a.test/ and https://d.test/";
    expect(extractLinks(html, text)).toEqual(["https://a.test/", "https://b.test/", "https://c.test/", "https://d.test/"]);
  });

  it("trims trailing punctuation from text URLs", () => {
    const text = `See https://a.test/x. Or (https://b.test/y), "https://c.test/z"! Really https://d.test/w?`;
    expect(extractLinks(undefined, text)).toEqual(["https://a.test/x", "https://b.test/y", "https://c.test/z", "https://d.test/w"]);
  });

  it("trims sentence punctuation after a URL in html text but not inside a quoted attribute", () => {
    const html = `<p>Go to https://a.test/x.</p><a href="https://b.test/end.">b</a>`;
    expect(extractLinks(html, undefined)).toEqual(["https://a.test/x", "https://b.test/end."]);
  });

  it("keeps a closing parenthesis that belongs to the URL", () => {
    const text = "Read https://en.wikipedia.test/wiki/Mail_(protocol) (or https://x.test/a_(b)).";
    expect(extractLinks(undefined, text)).toEqual(["https://en.wikipedia.test/wiki/Mail_(protocol)", "https://x.test/a_(b)"]);
  });

  it("matches the scheme case-insensitively and keeps the URL as written", () => {
    expect(extractLinks(`<a href="HTTPS://A.test/X">x</a>`, "Http://b.test")).toEqual(["HTTPS://A.test/X", "Http://b.test"]);
  });

  it("ignores other schemes and a bare scheme with nothing after it", () => {
    expect(extractLinks(`<a href="mailto:a@b.test">m</a> ftp://x.test https://`, "https:// and javascript:alert(1)")).toEqual([]);
  });

  it("returns an empty list when there is neither html nor text", () => {
    expect(extractLinks(undefined, undefined)).toEqual([]);
  });
});
