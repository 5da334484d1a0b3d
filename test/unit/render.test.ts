// Placeholder syntax, escaping and missing/unknown data checks of the template renderer.

import { describe, it, expect } from "vitest";
import { compileText, escapeHtml, findMissingData, findSubjectLineBreaks, findUnknownData, renderTemplate, type Template } from "../../src/domain/render.js";
import type { TemplateData } from "../../src/wire.js";

function aTemplate(sources: { subject?: string; html?: string; text?: string }): Template {
  const subjectSource = sources.subject ?? "Hello";
  const subject = compileText(subjectSource);
  const html = sources.html === undefined ? undefined : compileText(sources.html);
  const text = sources.text === undefined ? undefined : compileText(sources.text);
  return {
    id: "test",
    file: "/templates/test.yaml",
    subject,
    html,
    text,
    subjectSource,
    htmlSource: sources.html,
    textSource: sources.text,
    description: undefined,
    sampleData: undefined,
    placeholders: [...new Set([...subject.placeholders, ...(html?.placeholders ?? []), ...(text?.placeholders ?? [])])],
  };
}

function renderText(source: string, data: TemplateData): string | undefined {
  return renderTemplate(aTemplate({ text: source }), data).text;
}

function renderHtml(source: string, data: TemplateData): string | undefined {
  return renderTemplate(aTemplate({ html: source }), data).html;
}

describe("compileText", () => {
  it("lists each placeholder once, in order of first appearance", () => {
    expect(compileText("{b} {a} {b} {_c9}").placeholders).toEqual(["b", "a", "_c9"]);
  });

  it("treats brace text that is not a placeholder name as literal", () => {
    const compiled = compileText("body { color: red; } { x } {} {9lives} {a-b} {name }");
    expect(compiled.placeholders).toEqual([]);
    expect(compiled.segments).toEqual([{ kind: "literal", text: "body { color: red; } { x } {} {9lives} {a-b} {name }" }]);
  });

  it("reads {{name}} as escaped braces around plain text, not as a placeholder", () => {
    expect(compileText("{{name}}").placeholders).toEqual([]);
  });
});

describe("placeholders", () => {
  it("replaces every occurrence of a placeholder with its value", () => {
    expect(renderText("Hi {name}, bye {name}.", { name: "Ada" })).toBe("Hi Ada, bye Ada.");
  });

  it("keeps CSS braces in html untouched while filling placeholders around them", () => {
    const html = "<style>body { color: red; } .a{margin:0}</style><p>{name}</p>";
    expect(renderHtml(html, { name: "Ada" })).toBe("<style>body { color: red; } .a{margin:0}</style><p>Ada</p>");
  });

  it("writes {{ as { and }} as }", () => {
    expect(renderText("a {{ b }} c", {})).toBe("a { b } c");
  });

  it("renders {{name}} as the text {name}", () => {
    expect(renderText("{{name}}", { name: "Ada" })).toBe("{name}");
  });

  it("fills a placeholder wrapped in escaped braces", () => {
    expect(renderText("{{{name}}}", { name: "Ada" })).toBe("{Ada}");
  });

  it("never expands braces found inside a value", () => {
    const data = { name: "{company}", company: "Acme", greeting: "{{name}}" };
    expect(renderText("{name} / {company} / {greeting}", data)).toBe("{company} / Acme / {{name}}");
  });

  it("renders a missing value as an empty string instead of throwing", () => {
    expect(renderText("Hi {name}!", {})).toBe("Hi !");
  });

  it("leaves html or text undefined when the template has none", () => {
    const rendered = renderTemplate(aTemplate({ subject: "S", text: "T" }), {});
    expect(rendered).toEqual({ subject: "S", html: undefined, text: "T" });
  });
});

describe("escaping", () => {
  const data = { name: `Tom & "Jerry" <b>'s</b>` };

  it("HTML-escapes values inserted into html", () => {
    expect(renderHtml("<p>{name}</p>", data)).toBe("<p>Tom &amp; &quot;Jerry&quot; &lt;b&gt;&#39;s&lt;/b&gt;</p>");
  });

  it("inserts values as they are into subject and text", () => {
    const rendered = renderTemplate(aTemplate({ subject: "For {name}", text: "{name}" }), data);
    expect(rendered.subject).toBe(`For Tom & "Jerry" <b>'s</b>`);
    expect(rendered.text).toBe(`Tom & "Jerry" <b>'s</b>`);
  });

  it("folds each run of line breaks a value brings into the subject to one space, and names the keys; the text keeps them", () => {
    const template = aTemplate({ subject: "For {name} at {company}", text: "{name}" });
    const data = { name: "Ada\r\n\nLovelace", company: ["Acme\n", "Co"] };
    const rendered = renderTemplate(template, data);
    expect(rendered.subject).toBe("For Ada Lovelace at Acme , Co");
    expect(rendered.text).toBe("Ada\r\n\nLovelace");
    expect(findSubjectLineBreaks(template, data)).toEqual(["name", "company"]);
    expect(findSubjectLineBreaks(template, data, { subjectOverride: "Hi" })).toEqual([]);
  });

  it("does not escape the template's own markup", () => {
    expect(renderHtml(`<a href="x">&amp;</a>`, {})).toBe(`<a href="x">&amp;</a>`);
  });

  it("escapeHtml escapes the five special characters and leaves other text alone", () => {
    expect(escapeHtml(`&<>"'`)).toBe("&amp;&lt;&gt;&quot;&#39;");
    expect(escapeHtml("plain text é")).toBe("plain text é");
  });
});

describe("array values", () => {
  it("joins an array with a comma and a space in subject and text", () => {
    const rendered = renderTemplate(aTemplate({ subject: "{items}", text: "Items: {items}" }), { items: ["a", "b", "c"] });
    expect(rendered.subject).toBe("a, b, c");
    expect(rendered.text).toBe("Items: a, b, c");
  });

  it("escapes each array item in html", () => {
    expect(renderHtml("{items}", { items: ["<x>", "a & b"] })).toBe("&lt;x&gt;, a &amp; b");
  });

  it("renders an empty array as an empty string", () => {
    expect(renderText("[{items}]", { items: [] })).toBe("[]");
  });
});

describe("subject override", () => {
  it("replaces the template subject verbatim, braces included", () => {
    const template = aTemplate({ subject: "Hi {name}", text: "x" });
    const rendered = renderTemplate(template, { name: "Ada" }, { subjectOverride: "Literal {name} {{x}} & <b>" });
    expect(rendered.subject).toBe("Literal {name} {{x}} & <b>");
  });

  it("uses the template subject when the override is undefined", () => {
    const rendered = renderTemplate(aTemplate({ subject: "Hi {name}", text: "x" }), { name: "Ada" }, { subjectOverride: undefined });
    expect(rendered.subject).toBe("Hi Ada");
  });
});

describe("findMissingData", () => {
  const template = aTemplate({ subject: "{title}", html: "{name} {company}", text: "{name} {footer}" });

  it("lists the placeholders without a value, in order of first appearance", () => {
    expect(findMissingData(template, { company: "Acme" })).toEqual(["title", "name", "footer"]);
  });

  it("returns an empty list when every placeholder has a value", () => {
    expect(findMissingData(template, { title: "t", name: "n", company: "c", footer: "f" })).toEqual([]);
  });

  it("counts an empty string or an empty array as present", () => {
    expect(findMissingData(template, { title: "", name: [], company: "", footer: "" })).toEqual([]);
  });

  it("ignores subject placeholders when the subject is overridden", () => {
    expect(findMissingData(template, { company: "Acme" }, { subjectOverride: "Custom" })).toEqual(["name", "footer"]);
  });

  it("does not treat inherited keys such as constructor or __proto__ as present", () => {
    const withInheritedNames = aTemplate({ text: "{constructor} {__proto__} {toString}" });
    expect(findMissingData(withInheritedNames, {})).toEqual(["constructor", "__proto__", "toString"]);
  });

  it("accepts __proto__ and constructor when they are own keys of the data", () => {
    const withInheritedNames = aTemplate({ text: "{constructor}|{__proto__}" });
    const data = JSON.parse(`{"constructor": "c", "__proto__": "p"}`) as TemplateData;
    expect(findMissingData(withInheritedNames, data)).toEqual([]);
    expect(renderTemplate(withInheritedNames, data).text).toBe("c|p");
  });

  it("renders inherited names as empty, never as Object internals", () => {
    expect(renderText("[{constructor}][{__proto__}][{toString}]", {})).toBe("[][][]");
  });
});

describe("findUnknownData", () => {
  const template = aTemplate({ subject: "{title}", html: "{name}", text: "{footer}" });

  it("lists data keys that match no placeholder of subject, html or text", () => {
    expect(findUnknownData(template, { title: "t", name: "n", footer: "f", extra: "x", other: ["y"] })).toEqual(["extra", "other"]);
  });

  it("returns an empty list when every key is used", () => {
    expect(findUnknownData(template, { title: "t", name: "n" })).toEqual([]);
  });

  it("reports an own __proto__ key as unknown when no placeholder uses it", () => {
    const data = JSON.parse(`{"__proto__": "p", "name": "n"}`) as TemplateData;
    expect(findUnknownData(template, data)).toEqual(["__proto__"]);
  });
});
