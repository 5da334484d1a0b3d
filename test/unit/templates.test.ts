// Loading and checking a templates folder, and the templates shipped in fixtures/; its hot
// reload is in templates-hot-reload.test.ts.

import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, it, expect } from "vitest";
import { extractLinks } from "../../src/domain/links.js";
import { findMissingData, findUnknownData, renderTemplate } from "../../src/domain/render.js";
import { loadTemplateCatalog, TemplateFolderError } from "../../src/domain/templates.js";
import { entryOf, errorOf, templateFolders, WELCOME_YAML } from "./template-folders.js";

const SHIPPED_TEMPLATES = fileURLToPath(new URL("../../fixtures/templates", import.meta.url));

const { cleanups, aTemplatesFolder, load } = templateFolders();

describe("loading a folder", () => {
  it("loads .yaml, .yml and .json templates under their file names", async () => {
    const folder = await aTemplatesFolder({
      "welcome.yaml": WELCOME_YAML,
      "short.yml": "subject: Short\ntext: Just text\n",
      "receipt.json": JSON.stringify({ subject: "Order {order}", html: "<p>{items}</p>", sample_data: { order: "1", items: ["a", "b"] } }),
    });
    const { catalog, logLines } = await load(folder);

    expect(catalog.list().map((entry) => entry.id)).toEqual(["receipt", "short", "welcome"]);
    expect(logLines).toEqual([]);
    const welcome = catalog.get("welcome");
    expect(welcome).toMatchObject({
      id: "welcome",
      file: path.join(folder, "welcome.yaml"),
      subjectSource: "Welcome {name}",
      htmlSource: "<p>Hello {name} from {company}</p>",
      textSource: "Hello {name} from {company}",
      description: "Greets a new user",
      sampleData: { name: "Ada", company: "Acme" },
      placeholders: ["name", "company"],
    });
    expect(catalog.get("short")).toMatchObject({ html: undefined, htmlSource: undefined, sampleData: undefined, placeholders: [] });
    expect(catalog.get("receipt")?.placeholders).toEqual(["order", "items"]);
  });

  it("orders placeholders by first appearance in subject, then html, then text", async () => {
    const folder = await aTemplatesFolder({ "t.yaml": "subject: '{c} {a}'\nhtml: '{b} {a}'\ntext: '{d} {c}'\n" });
    const { catalog } = await load(folder);
    expect(catalog.get("t")?.placeholders).toEqual(["c", "a", "b", "d"]);
  });

  it("ignores dotfiles, other extensions and subfolders", async () => {
    const folder = await aTemplatesFolder({
      "welcome.yaml": WELCOME_YAML,
      ".hidden.yaml": "not: [valid",
      "notes.txt": "hello",
      "welcome.yaml~": "backup",
      "README.md": "# templates",
    });
    await mkdir(path.join(folder, "nested.yaml"));
    await writeFile(path.join(folder, "nested.yaml", "inner.yaml"), WELCOME_YAML);
    const { catalog } = await load(folder);
    expect(catalog.list().map((entry) => entry.id)).toEqual(["welcome"]);
  });

  it("resolves a relative folder to an absolute path", async () => {
    const folder = await aTemplatesFolder({ "welcome.yaml": WELCOME_YAML });
    const { catalog } = await load(path.relative(process.cwd(), folder));
    expect(catalog.folder).toBe(folder);
    expect(catalog.get("welcome")?.file).toBe(path.join(folder, "welcome.yaml"));
  });

  it("returns undefined for unknown ids, including names inherited from Object", async () => {
    const folder = await aTemplatesFolder({ "welcome.yaml": WELCOME_YAML });
    const { catalog } = await load(folder);
    expect(catalog.get("__proto__")).toBeUndefined();
    expect(catalog.get("constructor")).toBeUndefined();
    expect(catalog.get("toString")).toBeUndefined();
    expect(catalog.get("nope")).toBeUndefined();
  });

  it("keeps a __proto__ key of sample_data as data", async () => {
    const folder = await aTemplatesFolder({ "odd.json": `{"subject": "{__proto__}", "text": "x", "sample_data": {"__proto__": "p"}}` });
    const { catalog } = await load(folder);
    const sampleData = catalog.get("odd")?.sampleData;
    expect(sampleData === undefined ? undefined : Object.hasOwn(sampleData, "__proto__")).toBe(true);
    expect(Object.getPrototypeOf(sampleData)).toBe(Object.prototype);
  });
});

describe("templates parsed ahead", () => {
  it("builds a YAML template from the document parsed ahead for its exact text, and parses any other text", async () => {
    const folder = await aTemplatesFolder({ "welcome.yaml": WELCOME_YAML, "other.yaml": WELCOME_YAML.replace("Welcome", "Hi") });
    const asked: string[] = [];
    const catalog = await loadTemplateCatalog(folder, {
      watch: false,
      parsedAhead: (source) => {
        asked.push(source);
        // A document unlike the file's text, so that the template shows which one it was built from.
        return source === WELCOME_YAML ? { subject: "Parsed ahead {name}", text: "Ahead {name}" } : undefined;
      },
    });
    cleanups.push(() => catalog.close());
    expect(asked.sort()).toEqual([WELCOME_YAML, WELCOME_YAML.replace("Welcome", "Hi")].sort());
    expect(catalog.get("welcome")?.subjectSource).toBe("Parsed ahead {name}");
    expect(catalog.get("welcome")?.html).toBeUndefined();
    expect(catalog.get("other")?.subjectSource).toBe("Hi {name}");
  });
});

describe("broken files", () => {
  it("reports a file that fails to parse and keeps the other templates working", async () => {
    const folder = await aTemplatesFolder({ "welcome.yaml": WELCOME_YAML, "broken.yaml": "subject: [unclosed\ntext: x\n" });
    const { catalog, logLines } = await load(folder);

    expect(catalog.get("welcome")).toBeDefined();
    expect(catalog.get("broken")).toBeUndefined();
    const broken = entryOf(catalog, "broken");
    expect(broken).toMatchObject({ file: path.join(folder, "broken.yaml"), template: undefined });
    expect(broken.error).toMatch(/line \d+, column \d+/);
    expect(broken.error).not.toContain("\n");
    expect(logLines).toEqual([`template ${path.join(folder, "broken.yaml")}: ${broken.error ?? ""}`]);
  });

  it("reports invalid JSON with the parser's message", async () => {
    const folder = await aTemplatesFolder({ "bad.json": `{"subject": "x",}` });
    const { catalog } = await load(folder);
    expect(errorOf(catalog, "bad")).toMatch(/JSON/);
  });

  it("reports both files when two files define the same id", async () => {
    const folder = await aTemplatesFolder({
      "welcome.yaml": WELCOME_YAML,
      "welcome.json": `{"subject": "x", "text": "y"}`,
      "other.yml": "subject: o\ntext: t\n",
    });
    const { catalog, logLines } = await load(folder);

    expect(catalog.get("welcome")).toBeUndefined();
    expect(catalog.get("other")).toBeDefined();
    expect(catalog.list().map((entry) => entry.id)).toEqual(["other", "welcome"]);
    expect(errorOf(catalog, "welcome")).toContain("welcome.json");
    expect(errorOf(catalog, "welcome")).toContain("welcome.yaml");
    expect(logLines).toHaveLength(1);
  });

  it("reports an unknown top-level key by name", async () => {
    const folder = await aTemplatesFolder({ "t.yaml": "subject: s\ntext: t\nbody: oops\n" });
    const { catalog } = await load(folder);
    expect(errorOf(catalog, "t")).toContain('unknown key "body"');
  });

  it("reports a missing subject", async () => {
    const folder = await aTemplatesFolder({ "t.yaml": "text: t\n" });
    const { catalog } = await load(folder);
    expect(errorOf(catalog, "t")).toContain("subject is missing");
  });

  it("reports a template with neither html nor text", async () => {
    const folder = await aTemplatesFolder({ "t.yaml": "subject: s\ndescription: d\n" });
    const { catalog } = await load(folder);
    expect(errorOf(catalog, "t")).toContain("needs html or text");
  });

  it("reports fields of the wrong type", async () => {
    const folder = await aTemplatesFolder({
      "subject.yaml": "subject: 42\ntext: t\n",
      "html.yaml": "subject: s\nhtml:\n",
      "text.yaml": "subject: s\ntext: { a: 1 }\n",
      "sample.yaml": "subject: s\ntext: '{n}'\nsample_data:\n  n: 1\n",
      "samplelist.yaml": "subject: s\ntext: t\nsample_data: [a]\n",
    });
    const { catalog } = await load(folder);
    expect(errorOf(catalog, "subject")).toContain("subject must be a string, not a number");
    expect(errorOf(catalog, "html")).toContain("html must be a string, not null");
    expect(errorOf(catalog, "text")).toContain("text must be a string, not a mapping");
    expect(errorOf(catalog, "sample")).toContain("sample_data values must be strings or lists of strings; n is not");
    expect(errorOf(catalog, "samplelist")).toContain("sample_data must be a mapping");
  });

  it("reports sample_data that lacks placeholders, naming the missing keys", async () => {
    const folder = await aTemplatesFolder({ "t.yaml": "subject: Hi {name}\ntext: '{company} {city}'\nsample_data:\n  company: Acme\n" });
    const { catalog } = await load(folder);
    expect(errorOf(catalog, "t")).toBe("sample_data has no value for name, city");
  });

  it("reports an empty file and a file that is not a mapping", async () => {
    const folder = await aTemplatesFolder({ "empty.yaml": "  \n", "list.yaml": "- subject: s\n" });
    const { catalog } = await load(folder);
    expect(errorOf(catalog, "empty")).toBe("the file is empty");
    expect(errorOf(catalog, "list")).toContain("expected a mapping");
  });
});

describe("an unusable folder", () => {
  it("rejects a missing folder with a TemplateFolderError naming it", async () => {
    const parent = await aTemplatesFolder({});
    const missing = path.join(parent, "nope");
    const loading = loadTemplateCatalog(missing, { watch: true });
    await expect(loading).rejects.toBeInstanceOf(TemplateFolderError);
    await expect(loading).rejects.toThrow(`templates folder ${missing} does not exist`);
  });

  it("rejects a file given as the folder", async () => {
    const parent = await aTemplatesFolder({ "welcome.yaml": WELCOME_YAML });
    const file = path.join(parent, "welcome.yaml");
    await expect(loadTemplateCatalog(file, { watch: false })).rejects.toThrow(`templates folder ${file} is not a directory`);
  });
});

describe("shipped templates", () => {
  it("load without errors and include the documented examples", async () => {
    const { catalog, logLines } = await load(SHIPPED_TEMPLATES);
    expect(logLines).toEqual([]);
    expect(catalog.list().filter((entry) => entry.error !== undefined)).toEqual([]);
    expect(catalog.list().map((entry) => entry.id)).toEqual(expect.arrayContaining(["newsletter", "order-receipt", "password-reset", "welcome"]));
  });

  it("each render their own sample_data with nothing missing or unused", async () => {
    const { catalog } = await load(SHIPPED_TEMPLATES);
    for (const entry of catalog.list()) {
      const template = entry.template;
      const sampleData = template?.sampleData;
      expect(sampleData, entry.id).toBeDefined();
      if (template === undefined || sampleData === undefined) {
        continue;
      }
      expect(template.description, entry.id).toBeDefined();
      expect(template.html, entry.id).toBeDefined();
      expect(template.text, entry.id).toBeDefined();
      expect(findMissingData(template, sampleData), entry.id).toEqual([]);
      expect(findUnknownData(template, sampleData), entry.id).toEqual([]);
      const rendered = renderTemplate(template, sampleData);
      expect(`${rendered.subject}${rendered.html ?? ""}${rendered.text ?? ""}`, entry.id).not.toMatch(/\{[A-Za-z_]\w*\}/);
    }
  });

  it("keep the newsletter's CSS braces literal", async () => {
    const { catalog } = await load(SHIPPED_TEMPLATES);
    const newsletter = catalog.get("newsletter");
    expect(newsletter?.sampleData).toBeDefined();
    if (newsletter?.sampleData === undefined) {
      return;
    }
    const html = renderTemplate(newsletter, newsletter.sampleData).html ?? "";
    expect(html).toContain("<style>");
    expect(html).toMatch(/body \{ margin: 0;[^}]*\}/);
    expect(html).toContain(newsletter.sampleData.headline);
  });

  it("put the token into the password reset link", async () => {
    const { catalog } = await load(SHIPPED_TEMPLATES);
    const reset = catalog.get("password-reset");
    expect(reset?.sampleData).toBeDefined();
    if (reset?.sampleData === undefined) {
      return;
    }
    const rendered = renderTemplate(reset, reset.sampleData);
    const token = reset.sampleData.token;
    expect(typeof token).toBe("string");
    expect(extractLinks(rendered.html, rendered.text)).toContain(`https://app.example.com/reset?token=${String(token)}`);
  });
});
