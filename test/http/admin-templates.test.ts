// GET /_mock/templates and /_mock/templates/{id}: the shipped templates as their files say, and a broken one.

import { readFileSync } from "node:fs";
import path from "node:path";
import request from "supertest";
import { describe, expect, it } from "vitest";
import YAML from "yaml";
import type { TemplateData, TemplateDetail, TemplateList } from "../../src/index.js";
import { aTemplatesFolder, checked, expectAdminError, send, sendOk } from "../support/admin-calls.js";
import { aMockForThisTest as aTrackedMock, SHIPPED_TEMPLATES, sharedMock } from "../support/helpers.js";

function fixture(id: string): { subject: string; html?: string; text?: string; sample_data: TemplateData } {
  return YAML.parse(readFileSync(path.join(SHIPPED_TEMPLATES, `${id}.yaml`), "utf8")) as { subject: string; sample_data: TemplateData };
}

describe("GET /_mock/templates", () => {
  const shared = sharedMock();

  const shipped: Record<string, string[]> = {
    newsletter: ["month", "company", "headline", "name", "summary"],
    "order-receipt": ["order_number", "name", "items", "total"],
    "password-reset": ["company", "name", "token", "expires_in"],
    welcome: ["company", "name", "login_url"],
  };

  it("lists the four shipped templates with their placeholders and sample_data", async () => {
    const mock = shared();

    const response = await checked(await request(mock.app).get("/_mock/templates"), "get", "/_mock/templates");

    expect(response.status).toBe(200);
    const list = response.body as TemplateList;
    expect(list.folder).toBe(SHIPPED_TEMPLATES);
    expect(list.templates.map((template) => template.id)).toEqual(Object.keys(shipped));
    for (const template of list.templates) {
      const source = fixture(template.id);
      expect(template, template.id).toEqual({
        id: template.id,
        file: `${template.id}.yaml`,
        ok: true,
        error: null,
        subject: source.subject,
        description: expect.any(String) as unknown,
        placeholders: shipped[template.id],
        has_html: true,
        has_text: true,
        sample_data: source.sample_data,
      });
    }
  });

  it("answers one template with its html and text sources", async () => {
    const mock = shared();
    const source = fixture("welcome");

    const response = await checked(await request(mock.app).get("/_mock/templates/welcome"), "get", "/_mock/templates/{id}");

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      id: "welcome",
      ok: true,
      subject: "Welcome to {company}, {name}!",
      placeholders: shipped.welcome,
      html: source.html,
      text: source.text,
      sample_data: source.sample_data,
    });
  });

  it("answers 404 not_found for an unknown template", async () => {
    const mock = shared();
    const response = await checked(await request(mock.app).get("/_mock/templates/wellcome"), "get", "/_mock/templates/{id}");
    expectAdminError(response, 404, "not_found");
  });

  it("shows a broken file with ok false and its error while the other templates still send", async () => {
    const folder = await aTemplatesFolder({
      "plain.yaml": "subject: Hello {name}\ntext: Hi {name}\n",
      "broken.yaml": "text: a template without a subject\n",
    });
    const mock = await aTrackedMock({ templates: folder });

    const list = await checked(await request(mock.app).get("/_mock/templates"), "get", "/_mock/templates");
    const detail = await checked(await request(mock.app).get("/_mock/templates/broken"), "get", "/_mock/templates/{id}");

    expect((list.body as TemplateList).folder).toBe(folder);
    const broken = (list.body as TemplateList).templates.find((template) => template.id === "broken");
    expect(broken).toMatchObject({ file: "broken.yaml", ok: false, subject: null, placeholders: [], has_html: false, has_text: false, sample_data: null });
    expect(broken?.error).toMatch(/subject/);
    expect((list.body as TemplateList).templates.find((template) => template.id === "plain")).toMatchObject({
      ok: true,
      error: null,
      has_html: false,
      has_text: true,
    });
    expect(detail.status).toBe(200);
    expect(detail.body).toMatchObject({ id: "broken", ok: false, html: null, text: null } satisfies Partial<TemplateDetail>);
    expect(await sendOk(mock, { template_id: "plain", data: { name: "Ada" } })).toMatch(/\S/);
    expect((await send(mock, { template_id: "broken", data: {} })).status).toBe(422);
  });
});
