// How POST /send renders a template, as seen in the captured message: escaping, arrays, braces, line breaks in the subject, unused data keys.

import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import YAML from "yaml";
import type { SendRequest, TemplateData } from "../../src/index.js";
import { expectError } from "../support/error-responses.js";
import { aMockForThisTest, aSendRequest, SHIPPED_TEMPLATES, sharedMock } from "../support/helpers.js";
import { capturedMessages, latestMessage, send, WELCOME_DATA } from "../support/send-calls.js";

const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A temporary templates folder, removed after the test; `templates` maps a template id to its fields. */
async function aTemplatesFolder(templates: Record<string, Record<string, unknown>>): Promise<string> {
  const folder = await mkdtemp(path.join(os.tmpdir(), "sendmock-send-test-"));
  cleanups.push(() => rm(folder, { recursive: true, force: true }));
  for (const [id, fields] of Object.entries(templates)) {
    await writeFile(path.join(folder, `${id}.yaml`), YAML.stringify(fields));
  }
  return folder;
}

// ---------------------------------------------------------------------------------------------

describe("a data value with a line break in the subject", () => {
  const shared = sharedMock();

  it("is folded to a space, so the subject stays one header line, with a warning naming the key", async () => {
    const mock = shared();

    const response = await send(mock, aSendRequest({ data: { ...WELCOME_DATA, name: "Ada\r\nBcc: eve@example.com" } }));

    expect(response.status).toBe(200);
    const message = await latestMessage(mock);
    expect(message.subject).not.toMatch(/[\r\n]/);
    expect(message.subject).toContain("Ada Bcc: eve@example.com");
    expect(message.warnings).toEqual([expect.stringContaining("subject_line_break: data.name") as unknown]);
    expect(message.text).toContain("Ada\r\nBcc: eve@example.com");
  });
});

describe("data keys that match no placeholder", () => {
  const shared = sharedMock();

  const withNickname = (): SendRequest => aSendRequest({ data: { ...WELCOME_DATA, nickname: "Countess" } });

  it("are accepted with a warning in X-Sendmock-Warning and on the captured message", async () => {
    const mock = shared();

    const response = await send(mock, withNickname());

    expect(response.status).toBe(200);
    expect(response.headers["x-sendmock-warning"]).toContain("data.nickname");
    const message = await latestMessage(mock);
    expect(message.warnings).toEqual([expect.stringContaining("data.nickname") as unknown]);
    expect(message.data).toEqual({ ...WELCOME_DATA, nickname: "Countess" });
  });

  it("leave no warning header on a send whose data all match", async () => {
    const mock = shared();

    const response = await send(mock, aSendRequest());

    expect(response.headers["x-sendmock-warning"]).toBeUndefined();
    expect((await latestMessage(mock)).warnings).toEqual([]);
  });

  it("are rejected with 422 unknown_template_data under strict_data, and nothing is captured", async () => {
    const mock = await aMockForThisTest({ strictData: true });

    const response = await send(mock, withNickname());

    expectError(response, { code: "unknown_template_data", status: 422, says: "data.nickname" });
    expect(await capturedMessages(mock)).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------

describe("rendering, as seen in the captured message", () => {
  const shared = sharedMock();

  it("escapes a value in the html but inserts it as is in the text and the subject", async () => {
    const mock = shared();

    await send(mock, aSendRequest({ data: { ...WELCOME_DATA, name: '<b>Ada & "Co"</b>' } }));

    const message = await latestMessage(mock);
    expect(message.html).toContain("Welcome aboard, &lt;b&gt;Ada &amp; &quot;Co&quot;&lt;/b&gt;!");
    expect(message.html).not.toContain("<b>Ada");
    expect(message.text).toContain('Welcome aboard, <b>Ada & "Co"</b>!');
    expect(message.subject).toBe('Welcome to Analytical Engines, <b>Ada & "Co"</b>!');
  });

  it("joins an array value with a comma and a space, escaping each item in the html", async () => {
    const mock = shared();
    const data = { name: "Grace", order_number: "1042", items: ["1 x Salt & pepper", "2 x <Moth>"], total: "$42.00" };

    await send(mock, aSendRequest({ template_id: "order-receipt", data }));

    const message = await latestMessage(mock);
    expect(message.text).toContain("Items: 1 x Salt & pepper, 2 x <Moth>\n");
    expect(message.html).toContain("<strong>Items:</strong> 1 x Salt &amp; pepper, 2 x &lt;Moth&gt;</p>");
    expect(message.subject).toBe("Your receipt for order #1042");
  });

  it("never expands braces inside a value again", async () => {
    const mock = shared();

    await send(mock, aSendRequest({ data: { ...WELCOME_DATA, name: "{company} {{x}}" } }));

    const message = await latestMessage(mock);
    expect(message.subject).toBe("Welcome to Analytical Engines, {company} {{x}}!");
    expect(message.text).toContain("Welcome aboard, {company} {{x}}!");
    expect(message.html).toContain("Welcome aboard, {company} {{x}}!");
  });

  it("keeps the CSS of a <style> block literally (newsletter)", async () => {
    const mock = shared();
    const data = { name: "Linus", company: "Acme", month: "June", headline: "Faster dashboards", summary: "CSV export." };

    const response = await send(mock, aSendRequest({ template_id: "newsletter", data }));

    expect(response.status).toBe(200);
    const message = await latestMessage(mock);
    expect(message.html).toContain("body { margin: 0; padding: 24px; background: #f4f5f7;");
    expect(message.html).toContain("@media (max-width: 600px) {\n        .card { padding: 16px; }\n      }");
    expect(message.html).toContain("<h1>Faster dashboards</h1>");
    expect(message.subject).toBe("June at Acme: what's new");
  });

  it("writes {{name}} as the literal text {name}", async () => {
    const templates = await aTemplatesFolder({
      "literal-braces": { subject: "About {{name}}", html: "<p>Write {{name}} to greet {name}.</p>", text: "Write {{name}} to greet {name}." },
    });
    const mock = await aMockForThisTest({ templates });

    const response = await send(mock, aSendRequest({ template_id: "literal-braces", data: { name: "Ada" } }));

    expect(response.status).toBe(200);
    const message = await latestMessage(mock);
    expect(message.subject).toBe("About {name}");
    expect(message.html).toBe("<p>Write {name} to greet Ada.</p>");
    expect(message.text).toBe("Write {name} to greet Ada.");
    expect(message.warnings).toEqual([]);
  });

  it("escapes a value inside an html attribute and leaves the text alone", async () => {
    const templates = await aTemplatesFolder({
      profile: { subject: "Hi {name}", html: '<a title="{name}" href="{url}">{name}</a>', text: "{name}: {url}" },
    });
    const mock = await aMockForThisTest({ templates });

    await send(mock, aSendRequest({ template_id: "profile", data: { name: `O'Brien "Bob"`, url: "https://example.com/?a=1&b=2" } }));

    const message = await latestMessage(mock);
    expect(message.html).toBe('<a title="O&#39;Brien &quot;Bob&quot;" href="https://example.com/?a=1&amp;b=2">O&#39;Brien &quot;Bob&quot;</a>');
    expect(message.text).toBe(`O'Brien "Bob": https://example.com/?a=1&b=2`);
    expect(message.links).toEqual(["https://example.com/?a=1&b=2"]);
  });

  it("renders a text-only template with html null", async () => {
    const templates = await aTemplatesFolder({ "text-only": { subject: "Code", text: "Your code is {code}." } });
    const mock = await aMockForThisTest({ templates });

    await send(mock, aSendRequest({ template_id: "text-only", data: { code: "<123>" } }));

    const message = await latestMessage(mock);
    expect(message.html).toBeNull();
    expect(message.text).toBe("Your code is <123>.");
  });

  it("lists the password-reset link with its token in links, entities decoded", async () => {
    const mock = shared();
    const data = { name: "Ada", company: "Acme", token: "3f9c2a7e&sig=b1", expires_in: "30 minutes" };

    await send(mock, aSendRequest({ template_id: "password-reset", data }));

    const message = await latestMessage(mock);
    expect(message.html).toContain('href="https://app.example.com/reset?token=3f9c2a7e&amp;sig=b1"');
    expect(message.links).toEqual(["https://app.example.com/reset?token=3f9c2a7e&sig=b1"]);
  });

  it.each(["welcome", "password-reset", "order-receipt", "newsletter"])(
    "accepts the shipped %s template with its own sample_data, without warnings",
    async (templateId) => {
      const mock = await aMockForThisTest({ templates: SHIPPED_TEMPLATES });
      const file = YAML.parse(await readFile(path.join(SHIPPED_TEMPLATES, `${templateId}.yaml`), "utf8")) as { sample_data: TemplateData };

      const response = await send(mock, aSendRequest({ template_id: templateId, data: file.sample_data }));

      expect(response.status).toBe(200);
      const message = await latestMessage(mock);
      expect(message.template_id).toBe(templateId);
      expect(message.warnings).toEqual([]);
      expect(`${message.subject}${message.html ?? ""}${message.text ?? ""}`).not.toMatch(/\{[A-Za-z_][A-Za-z0-9_]*\}/);
    },
  );
});
