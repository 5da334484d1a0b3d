// The send service without a socket: one valid request -> the template rendered and the message
// captured, with a clock and ids of the test's own; and what proxy mode captures.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SHIPPED_TEMPLATES } from "../../src/package-root.js";
import type { Outbox } from "../../src/domain/outbox.js";
import type { SendService } from "../../src/domain/send.js";
import { loadTemplateCatalog, type TemplateCatalog } from "../../src/domain/templates.js";
import { ApiError } from "../../src/errors.js";
import { createApiSendService } from "../../src/send/service.js";
import { createMemoryOutbox } from "../../src/stores/memory/index.js";
import type { SendRequest } from "../../src/wire.js";

const NOW = new Date("2025-03-14T09:00:00.000Z");
const WELCOME_DATA = { name: "Ada", company: "Acme", login_url: "https://app.example.com/login" };

function aRequest(overrides: Partial<SendRequest> = {}): SendRequest {
  return { to: "ada@example.com", template_id: "welcome", data: { ...WELCOME_DATA }, ...overrides };
}

let catalog: TemplateCatalog;
beforeAll(async () => {
  catalog = await loadTemplateCatalog(SHIPPED_TEMPLATES, { watch: false });
});
afterAll(() => {
  catalog.close();
});

function aService(): { service: SendService; outbox: Outbox } {
  const outbox = createMemoryOutbox({ capacity: 10 });
  let sequence = 0;
  const service = createApiSendService({ catalog, outbox, now: () => NOW, newId: () => `msg_${String((sequence += 1))}` });
  return { service, outbox };
}

async function refusalOf(promise: Promise<unknown>): Promise<ApiError> {
  const error: unknown = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

describe("send", () => {
  it("renders the template, stamps the message with the given clock and id, and captures it", async () => {
    const { service, outbox } = aService();

    const message = await service.send(aRequest({ cc: ["bob@example.com"] }), { apiKeyHint: "0001", strictData: false });

    expect(message).toMatchObject({
      id: "msg_1",
      status: "queued",
      created_at: NOW.toISOString(),
      to: "ada@example.com",
      cc: ["bob@example.com"],
      bcc: [],
      reply_to: null,
      template_id: "welcome",
      subject: "Welcome to Acme, Ada!",
      data: WELCOME_DATA,
      warnings: [],
      api_key_hint: "0001",
    });
    expect(message.html).toContain("Welcome aboard, Ada!");
    expect(message.links).toContain("https://app.example.com/login");
    expect(await outbox.get("latest")).toEqual(message);
  });

  it("gives each message a new id", async () => {
    const { service } = aService();
    const first = await service.send(aRequest(), { apiKeyHint: "0001", strictData: false });
    const second = await service.send(aRequest(), { apiKeyHint: "0001", strictData: false });
    expect([first.id, second.id]).toEqual(["msg_1", "msg_2"]);
  });

  it("uses the request's own subject instead of the template's", async () => {
    const { service } = aService();
    const message = await service.send(aRequest({ subject: "Hello {name}" }), { apiKeyHint: "0001", strictData: false });
    expect(message.subject).toBe("Hello {name}");
  });

  it("refuses an unknown template with invalid_template_id and captures nothing", async () => {
    const { service, outbox } = aService();
    const error = await refusalOf(service.send(aRequest({ template_id: "wellcome" }), { apiKeyHint: "0001", strictData: false }));
    expect(error.code).toBe("invalid_template_id");
    expect(error.message).toContain('no template named "wellcome"');
    expect((await outbox.stats()).count).toBe(0);
  });

  it("refuses missing data with missing_template_data, naming the keys", async () => {
    const { service } = aService();
    const error = await refusalOf(service.send(aRequest({ data: { name: "Ada" } }), { apiKeyHint: "0001", strictData: false }));
    expect(error.code).toBe("missing_template_data");
    expect(error.message).toContain("data.company");
  });

  it("warns about unknown data, or refuses it with unknown_template_data when strict", async () => {
    const { service } = aService();
    const request = aRequest({ data: { ...WELCOME_DATA, plan: "pro" } });

    const message = await service.send(request, { apiKeyHint: "0001", strictData: false });
    expect(message.warnings).toEqual(['unknown_template_data: data.plan matches no placeholder of template "welcome"']);

    const error = await refusalOf(service.send(request, { apiKeyHint: "0001", strictData: true }));
    expect(error.code).toBe("unknown_template_data");
  });
});

describe("captureRelayed", () => {
  it("renders with the local template when the request keeps to the contract, under the upstream's id", async () => {
    const { service, outbox } = aService();
    const message = await service.captureRelayed({ request: aRequest(), id: "up_123", apiKeyHint: "0001", requestOk: true });
    expect(message).toMatchObject({ id: "up_123", created_at: NOW.toISOString(), subject: "Welcome to Acme, Ada!", warnings: [] });
    expect(await outbox.get("up_123")).toEqual(message);
  });

  it("captures the request as sent, saying why, when no local template renders it", async () => {
    const { service } = aService();
    const cases = [
      { request: aRequest({ template_id: "upstream-only", subject: "Hi" }), requestOk: true, warning: "no local template upstream-only" },
      { request: aRequest(), requestOk: false, warning: "the request breaks the contract, so the local template welcome was not used" },
      { request: aRequest({ data: {} }), requestOk: true, warning: "the local template welcome could not render it: Missing template data" },
    ];
    for (const { request, requestOk, warning } of cases) {
      const message = await service.captureRelayed({ request, id: "up_1", apiKeyHint: "0001", requestOk });
      expect(message).toMatchObject({ id: "up_1", html: null, text: null, links: [], subject: request.subject ?? "" });
      expect(message.warnings).toHaveLength(1);
      expect(message.warnings[0]).toContain(`rendered by the upstream service; ${warning}`);
    }
  });
});
