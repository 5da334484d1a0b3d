// The inspection API under /_mock: messages, journal, templates, config, reset, admin token.

import { readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import request from "supertest";
import { afterEach, describe, expect, it, vi } from "vitest";
import YAML from "yaml";
import type {
  CapturedMessage,
  ConfigView,
  JournalList,
  MessageList,
  SendMock,
  SendMockOptions,
  SendRequest,
  TemplateData,
  TemplateDetail,
  TemplateList,
} from "../../src/index.js";
import { aMock, aMockAndScopeForThisTest, aSendRequest, API_KEY, bearer, expectContract, SHIPPED_TEMPLATES, sharedMock } from "../support/helpers.js";
import { anAcceptedSendEntry } from "../support/journal-entries.js";

type AdminResponse = request.Response;

const SEND_CONTRACT_FILE = fileURLToPath(new URL("../../openapi/send.yaml", import.meta.url));
const ADMIN_TOKEN = "admin-secret-1";

const mocks: SendMock[] = [];
const folders: string[] = [];

afterEach(async () => {
  for (const mock of mocks.splice(0)) await mock.close();
  for (const folder of folders.splice(0)) await rm(folder, { recursive: true, force: true });
});

async function aTrackedMock(options: SendMockOptions = {}): Promise<SendMock> {
  const mock = await aMock(options);
  mocks.push(mock);
  return mock;
}

async function aTemplatesFolder(files: Record<string, string>): Promise<string> {
  const folder = await mkdtemp(path.join(os.tmpdir(), "sendmock-admin-"));
  folders.push(folder);
  for (const [name, content] of Object.entries(files)) await writeFile(path.join(folder, name), content);
  return folder;
}

/** Checks a response of the inspection API against openapi/admin.yaml and hands it back. */
async function checked(response: AdminResponse, method: string, contractPath: string): Promise<AdminResponse> {
  const contentType = response.headers["content-type"] ?? "";
  const body: unknown = contentType === "" || contentType.startsWith("application/json") ? response.body : response.text;
  await expectContract({ status: response.status, headers: response.headers, body }, { contract: "admin", method, path: contractPath });
  return response;
}

function expectAdminError(response: AdminResponse, status: number, code: string): void {
  expect(response.status).toBe(status);
  expect(response.headers["x-sendmock-error-code"]).toBe(code);
  const body = response.body as { success?: unknown; error?: { code?: unknown; message?: unknown } };
  expect(body.success).toBe(false);
  expect(body.error?.code).toBe(code);
  expect(body.error?.message).toBeTypeOf("string");
  expect(String(body.error?.message)).not.toBe("");
}

/** POST /send, checked against the send contract. */
async function send(mock: SendMock, overrides: Partial<SendRequest> = {}, key = API_KEY): Promise<AdminResponse> {
  const response = await request(mock.app).post("/send").set(bearer(key)).send(aSendRequest(overrides));
  await expectContract(response);
  return response;
}

/** POST /send that must be accepted in shape a; returns the message id. */
async function sendOk(mock: SendMock, overrides: Partial<SendRequest> = {}, key = API_KEY): Promise<string> {
  const response = await send(mock, overrides, key);
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return (response.body as { message_id: string }).message_id;
}

const receipt = (overrides: Partial<SendRequest> = {}): Partial<SendRequest> => ({
  to: "grace@example.com",
  template_id: "order-receipt",
  data: { name: "Grace", order_number: "1042", items: ["1 x Compiler", "2 x Moth"], total: "$42.00" },
  ...overrides,
});

async function listMessages(mock: SendMock, query: Record<string, string | number> = {}): Promise<MessageList> {
  const response = await checked(await request(mock.app).get("/_mock/messages").query(query), "get", "/_mock/messages");
  expect(response.status).toBe(200);
  return response.body as MessageList;
}

async function getConfig(mock: SendMock): Promise<ConfigView> {
  const response = await checked(await request(mock.app).get("/_mock/config"), "get", "/_mock/config");
  expect(response.status).toBe(200);
  return response.body as ConfigView;
}

async function patchConfig(mock: SendMock, patch: unknown): Promise<AdminResponse> {
  return checked(
    await request(mock.app)
      .patch("/_mock/config")
      .send(patch as object),
    "patch",
    "/_mock/config",
  );
}

async function listRequests(mock: SendMock, query: Record<string, number> = {}): Promise<JournalList> {
  const response = await checked(await request(mock.app).get("/_mock/requests").query(query), "get", "/_mock/requests");
  expect(response.status).toBe(200);
  return response.body as JournalList;
}

/** Returns once the clock has moved past `time`, so the next capture gets a later created_at. */
async function afterInstant(time: string): Promise<void> {
  while (Date.now() <= Date.parse(time)) await new Promise((resolve) => setTimeout(resolve, 1));
}

function fixture(id: string): { subject: string; html?: string; text?: string; sample_data: TemplateData } {
  return YAML.parse(readFileSync(path.join(SHIPPED_TEMPLATES, `${id}.yaml`), "utf8")) as { subject: string; sample_data: TemplateData };
}

describe("GET /_mock/messages", () => {
  const shared = sharedMock();

  it("answers an empty list before anything is sent", async () => {
    const mock = shared();
    expect(await listMessages(mock)).toEqual({ messages: [], total: 0 });
  });

  it("lists the captured messages newest first, as they were rendered", async () => {
    const mock = shared();
    const welcomeId = await sendOk(mock);
    const receiptId = await sendOk(mock, receipt({ cc: ["billing@example.com"], reply_to: "support@example.com" }));

    const list = await listMessages(mock);

    expect(list.total).toBe(2);
    expect(list.messages.map((message) => message.id)).toEqual([receiptId, welcomeId]);
    expect(list.messages[1]).toMatchObject({
      id: welcomeId,
      status: "queued",
      to: "ada@example.com",
      cc: [],
      bcc: [],
      reply_to: null,
      template_id: "welcome",
      subject: "Welcome to Analytical Engines, Ada!",
      data: aSendRequest().data,
      warnings: [],
      links: ["https://app.example.com/login"],
      api_key_hint: API_KEY.slice(-4),
    });
    expect(list.messages[0]).toMatchObject({ cc: ["billing@example.com"], reply_to: "support@example.com", subject: "Your receipt for order #1042" });
  });

  it("filters on to exactly and case-insensitively, with the address written unencoded in the URL", async () => {
    const mock = shared();
    const adaId = await sendOk(mock, { to: "ada@example.com" });
    await sendOk(mock, { to: "adam@example.com" });
    await sendOk(mock, { to: "grace@example.com", cc: ["ada@example.com"] });

    const response = await checked(await request(mock.app).get("/_mock/messages?to=ada@example.com"), "get", "/_mock/messages");
    expect(response.status).toBe(200);
    expect((response.body as MessageList).messages.map((message) => message.id)).toEqual([adaId]);

    const upper = await checked(await request(mock.app).get("/_mock/messages?to=ADA@Example.com"), "get", "/_mock/messages");
    expect((upper.body as MessageList).messages.map((message) => message.id)).toEqual([adaId]);
  });

  it("filters on recipient across to, cc and bcc", async () => {
    const mock = shared();
    const direct = await sendOk(mock, { to: "billing@example.com" });
    const copied = await sendOk(mock, { to: "ada@example.com", cc: ["billing@example.com"] });
    const blind = await sendOk(mock, { to: "grace@example.com", bcc: ["Billing@Example.com"] });
    await sendOk(mock, { to: "linus@example.com", cc: ["ada@example.com"] });

    const list = await listMessages(mock, { recipient: "billing@example.com" });

    expect(list.messages.map((message) => message.id)).toEqual([blind, copied, direct]);
    expect(list.total).toBe(3);
  });

  it("filters on template_id", async () => {
    const mock = shared();
    await sendOk(mock);
    const receiptId = await sendOk(mock, receipt());

    const list = await listMessages(mock, { template_id: "order-receipt" });

    expect(list).toMatchObject({ total: 1, messages: [{ id: receiptId, template_id: "order-receipt" }] });
    expect((await listMessages(mock, { template_id: "order" })).total).toBe(0);
  });

  it("filters on a case-insensitive substring of the subject", async () => {
    const mock = shared();
    await sendOk(mock);
    const receiptId = await sendOk(mock, receipt());

    expect((await listMessages(mock, { subject: "RECEIPT FOR order #10" })).messages.map((message) => message.id)).toEqual([receiptId]);
    expect((await listMessages(mock, { subject: "invoice" })).total).toBe(0);
  });

  it("searches q case-insensitively in the addresses, subject, bodies and data, with the other filters", async () => {
    const mock = shared();
    const welcomeId = await sendOk(mock);
    const receiptId = await sendOk(mock, receipt({ to: "ada@example.com", reply_to: "Support@Example.com" }));
    await sendOk(mock, receipt({ to: "grace@example.com" }));

    expect((await listMessages(mock, { q: "ANALYTICAL engines" })).messages.map((message) => message.id)).toEqual([welcomeId]);
    expect((await listMessages(mock, { q: "support@example" })).messages.map((message) => message.id)).toEqual([receiptId]);
    expect(await listMessages(mock, { q: "order #1042", to: "ada@example.com", limit: 1 })).toMatchObject({ total: 1, messages: [{ id: receiptId }] });
    expect((await listMessages(mock, { q: "order #1042" })).total).toBe(2);
    expect((await listMessages(mock, { q: "nowhere" })).total).toBe(0);
  });

  it("waits with wait_ms for a message that q finds", async () => {
    const mock = shared();
    const waiting = listMessages(mock, { q: "Analytical", wait_ms: 5000 });
    await sendOk(mock, receipt());
    const welcomeId = await sendOk(mock);

    expect((await waiting).messages.map((message) => message.id)).toEqual([welcomeId]);
  });

  it("keeps messages created at or after since", async () => {
    const mock = shared();
    const firstId = await sendOk(mock);
    const first = await mock.outbox.get(firstId);
    await afterInstant(first?.created_at ?? "");
    const secondId = await sendOk(mock);
    const second = await mock.outbox.get(secondId);
    const since = second?.created_at ?? "";

    expect((await listMessages(mock, { since })).messages.map((message) => message.id)).toEqual([secondId]);
    expect((await listMessages(mock, { since: "2000-01-01T00:00:00Z" })).total).toBe(2);
    expect((await listMessages(mock, { since: "2999-01-01T00:00:00+02:00" })).total).toBe(0);
  });

  it("refuses a since that is not a date and time, saying what one looks like", async () => {
    const response = await request(shared().app).get("/_mock/messages?since=yesterday");
    expect(response.status).toBe(400);
    expect((response.body as { error: { message: string } }).error.message).toBe(
      "Invalid request: query.since must be a date and time such as 2026-11-22T09:26:00Z (RFC 3339)",
    );
  });

  it("returns at most limit messages, the newest, while total counts every match", async () => {
    const mock = shared();
    const ids = [await sendOk(mock), await sendOk(mock), await sendOk(mock)];
    await sendOk(mock, receipt());

    const list = await listMessages(mock, { template_id: "welcome", limit: 2 });

    expect(list.messages.map((message) => message.id)).toEqual([ids[2], ids[1]]);
    expect(list.total).toBe(3);
  });

  it("returns the newest 100 when no limit is given, as the contract's default says", async () => {
    const { mock, scope } = await aMockAndScopeForThisTest();
    const sample = await mock.outbox.get(await sendOk(mock));
    for (let index = 1; index <= 104; index += 1) {
      await scope.outbox.add({ ...(sample as CapturedMessage), id: `msg_copy_${String(index)}` });
    }

    const list = await listMessages(mock);

    expect(list.total).toBe(105);
    expect(list.messages).toHaveLength(100);
    expect(list.messages[0]?.id).toBe("msg_copy_104");
  });

  it.each([
    ["limit=0", { limit: "0" }],
    ["limit=x", { limit: "x" }],
    ["limit=20000", { limit: "20000" }],
    ["since=yesterday", { since: "yesterday" }],
    ["since without a time", { since: "2025-03-14" }],
    ["wait_ms=-1", { wait_ms: "-1" }],
    ["q longer than 256 characters", { q: "x".repeat(257) }],
  ])("rejects %s with 400 invalid_request", async (_name, query) => {
    const mock = shared();

    const response = await checked(await request(mock.app).get("/_mock/messages").query(query), "get", "/_mock/messages");

    expectAdminError(response, 400, "invalid_request");
  });
});

describe("waiting for a message with wait_ms", () => {
  it("answers a waiting request with the message as soon as it is sent", async () => {
    const { mock, scope } = await aMockAndScopeForThisTest();
    const waitFor = vi.spyOn(scope.outbox, "waitFor");
    const pending = request(mock.app)
      .get("/_mock/messages")
      .query({ to: "ada@example.com", wait_ms: 2000 })
      .then((response) => response);
    await vi.waitFor(
      () => {
        expect(waitFor).toHaveBeenCalled();
      },
      { timeout: 2_000, interval: 2 },
    );

    const sentAt = performance.now();
    const sentId = await sendOk(mock, { to: "ada@example.com" });
    const response = await checked(await pending, "get", "/_mock/messages");
    const elapsed = performance.now() - sentAt;

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ total: 1, messages: [{ id: sentId, to: "ada@example.com" }] });
    expect(elapsed).toBeLessThan(1_000);
  });

  it("keeps waiting past a message that does not match", async () => {
    const { mock, scope } = await aMockAndScopeForThisTest();
    const waitFor = vi.spyOn(scope.outbox, "waitFor");
    const pending = request(mock.app)
      .get("/_mock/messages")
      .query({ template_id: "order-receipt", wait_ms: 2000 })
      .then((response) => response);
    await vi.waitFor(
      () => {
        expect(waitFor).toHaveBeenCalled();
      },
      { timeout: 2_000, interval: 2 },
    );

    await sendOk(mock);
    const receiptId = await sendOk(mock, receipt());
    const response = await checked(await pending, "get", "/_mock/messages");

    expect(response.body).toMatchObject({ total: 1, messages: [{ id: receiptId }] });
  });

  it("answers at once when a match is already there", async () => {
    const mock = await aTrackedMock();
    const sentId = await sendOk(mock);

    const started = performance.now();
    const list = await listMessages(mock, { to: "ada@example.com", wait_ms: 5000 });

    expect(list.messages.map((message) => message.id)).toEqual([sentId]);
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it("ends a pending wait with an empty list when the mock closes", async () => {
    const { mock, scope } = await aMockAndScopeForThisTest();
    const waitFor = vi.spyOn(scope.outbox, "waitFor");
    const pending = request(mock.app)
      .get("/_mock/messages")
      .query({ to: "ada@example.com", wait_ms: 10_000 })
      .then((response) => response);
    await vi.waitFor(
      () => {
        expect(waitFor).toHaveBeenCalled();
      },
      { timeout: 2_000, interval: 2 },
    );

    const closedAt = performance.now();
    await mock.close();
    const response = await checked(await pending, "get", "/_mock/messages");

    expect(response.status).toBe(200);
    expect(response.body).toEqual({ messages: [], total: 0 });
    expect(performance.now() - closedAt).toBeLessThan(2_000);
  });

  it("answers an empty list once wait_ms runs out without a match", async () => {
    const mock = await aTrackedMock();
    await sendOk(mock, { to: "grace@example.com" });

    const started = performance.now();
    const list = await listMessages(mock, { to: "ada@example.com", wait_ms: 100 });
    const elapsed = performance.now() - started;

    expect(list).toEqual({ messages: [], total: 0 });
    expect(elapsed).toBeGreaterThanOrEqual(90);
    expect(elapsed).toBeLessThan(2_000);
  });
});

describe("GET /_mock/messages/{id}", () => {
  const shared = sharedMock();

  it("answers one message by its id", async () => {
    const mock = shared();
    const firstId = await sendOk(mock);
    await sendOk(mock, receipt());

    const response = await checked(await request(mock.app).get(`/_mock/messages/${firstId}`), "get", "/_mock/messages/{id}");

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ id: firstId, template_id: "welcome", to: "ada@example.com" });
    expect(response.body).toEqual(await mock.outbox.get(firstId));
  });

  it("answers the newest message for the id latest", async () => {
    const mock = shared();
    await sendOk(mock);
    const newestId = await sendOk(mock, receipt());

    const response = await checked(await request(mock.app).get("/_mock/messages/latest"), "get", "/_mock/messages/{id}");

    expect(response.status).toBe(200);
    expect((response.body as CapturedMessage).id).toBe(newestId);
  });

  it("answers 404 not_found for an unknown id", async () => {
    const mock = shared();
    await sendOk(mock);

    const response = await checked(await request(mock.app).get("/_mock/messages/msg_nope"), "get", "/_mock/messages/{id}");

    expectAdminError(response, 404, "not_found");
    expect((response.body as { error: { message: string } }).error.message).toContain("msg_nope");
  });

  it("answers 404 not_found for latest when the outbox is empty", async () => {
    const mock = shared();
    const response = await checked(await request(mock.app).get("/_mock/messages/latest"), "get", "/_mock/messages/{id}");
    expectAdminError(response, 404, "not_found");
  });
});

describe("GET /_mock/messages/{id}/html", () => {
  const shared = sharedMock();

  it("answers the rendered HTML as text/html behind a restrictive Content-Security-Policy", async () => {
    const mock = shared();
    const id = await sendOk(mock);
    const message = await mock.outbox.get(id);

    const response = await checked(await request(mock.app).get(`/_mock/messages/${id}/html`), "get", "/_mock/messages/{id}/html");

    expect(response.status).toBe(200);
    expect(response.headers["content-type"]).toMatch(/^text\/html/);
    expect(response.text).toBe(message?.html);
    expect(response.text).toContain("Welcome aboard, Ada!");
    expect(response.headers["content-security-policy"]).toContain("default-src 'none'");
    expect(response.headers["content-security-policy"]).not.toContain("script-src");
  });

  it("answers the HTML of the newest message for the id latest", async () => {
    const mock = shared();
    await sendOk(mock);
    await sendOk(mock, receipt());

    const response = await checked(await request(mock.app).get("/_mock/messages/latest/html"), "get", "/_mock/messages/{id}/html");

    expect(response.status).toBe(200);
    expect(response.text).toContain("Thank you for your order, Grace!");
  });

  it("answers 404 not_found for an unknown id", async () => {
    const mock = shared();
    const response = await checked(await request(mock.app).get("/_mock/messages/msg_nope/html"), "get", "/_mock/messages/{id}/html");
    expectAdminError(response, 404, "not_found");
  });

  it("answers 404 not_found for a message of a text-only template", async () => {
    const folder = await aTemplatesFolder({ "plain.yaml": "subject: Hello {name}\ntext: Hi {name}, plain text only.\n" });
    const mock = await aTrackedMock({ templates: folder });
    const id = await sendOk(mock, { template_id: "plain", data: { name: "Ada" } });
    expect((await mock.outbox.get(id))?.html).toBeNull();

    const response = await checked(await request(mock.app).get(`/_mock/messages/${id}/html`), "get", "/_mock/messages/{id}/html");

    expectAdminError(response, 404, "not_found");
  });
});

describe("DELETE /_mock/messages", () => {
  it("answers 204 and empties the outbox but keeps the journal", async () => {
    const mock = await aTrackedMock();
    await sendOk(mock);
    await sendOk(mock, receipt());

    const response = await checked(await request(mock.app).delete("/_mock/messages"), "delete", "/_mock/messages");

    expect(response.status).toBe(204);
    expect(response.text).toBe("");
    expect(await listMessages(mock)).toEqual({ messages: [], total: 0 });
    expect((await listRequests(mock)).total).toBe(2);
  });
});

describe("DELETE /_mock/messages/{id}", () => {
  const shared = sharedMock();

  it("answers 204 and deletes that message only, keeping the others and the journal", async () => {
    const mock = shared();
    const firstId = await sendOk(mock);
    const secondId = await sendOk(mock, receipt());

    const response = await checked(await request(mock.app).delete(`/_mock/messages/${firstId}`), "delete", "/_mock/messages/{id}");

    expect(response.status).toBe(204);
    expect(response.text).toBe("");
    expect((await request(mock.app).get(`/_mock/messages/${firstId}`)).status).toBe(404);
    expect(await listMessages(mock)).toMatchObject({ total: 1, messages: [{ id: secondId }] });
    expect((await listRequests(mock)).total).toBe(2);
  });

  it("deletes the newest message for the id latest, as GET reads it", async () => {
    const mock = shared();
    const olderId = await sendOk(mock);
    await sendOk(mock, receipt());

    const response = await checked(await request(mock.app).delete("/_mock/messages/latest"), "delete", "/_mock/messages/{id}");

    expect(response.status).toBe(204);
    expect(((await request(mock.app).get("/_mock/messages/latest")).body as CapturedMessage).id).toBe(olderId);
  });

  it("answers 404 not_found naming the id for an unknown or already deleted message", async () => {
    const mock = shared();
    const id = await sendOk(mock);
    await request(mock.app).delete(`/_mock/messages/${id}`);

    const response = await checked(await request(mock.app).delete(`/_mock/messages/${id}`), "delete", "/_mock/messages/{id}");

    expectAdminError(response, 404, "not_found");
    expect((response.body as { error: { message: string } }).error.message).toContain(id);
  });

  it("answers 404 not_found for latest when the outbox is empty", async () => {
    const mock = shared();
    const response = await checked(await request(mock.app).delete("/_mock/messages/latest"), "delete", "/_mock/messages/{id}");
    expectAdminError(response, 404, "not_found");
  });

  it("is offered to the library as mock.outbox.delete, which answers the id it deleted", async () => {
    const mock = shared();
    const id = await sendOk(mock);

    expect(await mock.outbox.delete("latest")).toBe(id);
    expect(await mock.outbox.delete(id)).toBeUndefined();
    expect(await mock.outbox.get(id)).toBeUndefined();
  });
});

describe("GET /_mock/requests", () => {
  const shared = sharedMock();

  it("lists accepted and rejected requests newest first", async () => {
    const mock = shared();
    const before = Date.now();
    const acceptedId = await sendOk(mock);
    const rejected = await send(mock, { to: "x" });
    expect(rejected.status).toBe(422);

    const journal = await listRequests(mock);

    expect(journal.total).toBe(2);
    const [newest, oldest] = journal.requests;
    expect(newest).toMatchObject({
      method: "POST",
      path: "/send",
      status: 422,
      error_code: "invalid_recipient",
      violations: [{ path: "/to" }],
      fault: null,
      message_id: null,
      api_key_hint: API_KEY.slice(-4),
      to: "x",
      template_id: "welcome",
    });
    expect(newest?.error_message).toContain("to");
    expect(oldest).toMatchObject(anAcceptedSendEntry({ fault: null, message_id: acceptedId }));
    expect(oldest?.duration_ms).toBeGreaterThanOrEqual(0);
    expect(Date.parse(oldest?.at ?? "")).toBeGreaterThanOrEqual(before - 1);
    expect(Date.parse(oldest?.at ?? "")).toBeLessThanOrEqual(Date.now());
  });

  it("points each violation of a contract failure at the field in the body", async () => {
    const mock = shared();
    const response = await send(mock, {
      cc: ["not-an-address"],
      data: { name: 42, company: "Acme", login_url: "https://app.example.com/login" } as unknown as TemplateData,
    });
    expect(response.status).toBe(400);

    const [entry] = (await listRequests(mock)).requests;

    expect(entry).toMatchObject({ status: 400, error_code: "invalid_request" });
    const paths = entry?.violations.map((violation) => violation.path);
    expect(paths).toEqual(expect.arrayContaining(["/cc/0", "/data/name"]));
    for (const violation of entry?.violations ?? []) expect(violation.message).not.toBe("");
  });

  it("records a request without an API key with a violation on its Authorization header", async () => {
    const mock = shared();
    const response = await request(mock.app).post("/send").send(aSendRequest());
    expect(response.status).toBe(401);

    const [entry] = (await listRequests(mock)).requests;

    expect(entry).toMatchObject({
      status: 401,
      error_code: "missing_api_key",
      api_key_hint: null,
      message_id: null,
      violations: [{ path: "/headers/authorization" }],
    });
  });

  it("returns at most limit entries, the newest, while total counts every entry", async () => {
    const mock = shared();
    await sendOk(mock);
    await send(mock, { to: "x" });
    const lastId = await sendOk(mock, receipt());

    const journal = await listRequests(mock, { limit: 1 });

    expect(journal.requests).toHaveLength(1);
    expect(journal.requests[0]?.message_id).toBe(lastId);
    expect(journal.total).toBe(3);
  });

  it("finds each request in the journal as soon as its answer has arrived", async () => {
    const mock = shared();
    for (let round = 1; round <= 20; round += 1) {
      const id = await sendOk(mock);
      const journal = await listRequests(mock, { limit: 1 });
      expect(journal.total, `after send ${String(round)}`).toBe(round);
      expect(journal.requests[0]?.message_id).toBe(id);
    }
  });

  it.each([["0"], ["x"], ["20000"]])("rejects limit=%s with 400 invalid_request", async (limit) => {
    const mock = shared();
    const response = await checked(await request(mock.app).get("/_mock/requests").query({ limit }), "get", "/_mock/requests");
    expectAdminError(response, 400, "invalid_request");
  });
});

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

describe("GET /_mock/config", () => {
  it("answers the defaults", async () => {
    const mock = await aTrackedMock();

    expect(await getConfig(mock)).toEqual({
      host: "127.0.0.1",
      port: expect.any(Number) as number,
      templates: SHIPPED_TEMPLATES,
      response_shape: "a",
      api_keys: null,
      strict_data: false,
      rate_limit: null,
      capacity: 10000,
      body_limit: "1mb",
      status_codes: {},
      seed: null,
      allow_fault_header: true,
      allow_magic_recipients: true,
      admin_token_set: false,
      cors_origins: [],
      captured_messages: 0,
      dropped_messages: 0,
      max_bytes: 48 * 1024 * 1024,
      captured_bytes: 0,
    } satisfies ConfigView);
  });

  it("shows API keys only as hints, never whole", async () => {
    const key = "secret-key-123456789";
    const mock = await aTrackedMock({ apiKeys: [key] });
    await sendOk(mock, {}, key);

    const response = await checked(await request(mock.app).get("/_mock/config"), "get", "/_mock/config");

    expect((response.body as ConfigView).api_keys).toEqual(["6789"]);
    expect(response.text).not.toContain(key);
    expect(response.text).not.toContain("123456789");
  });

  it("counts the messages dropped past capacity", async () => {
    const mock = await aTrackedMock({ capacity: 2 });
    await sendOk(mock);
    await sendOk(mock);
    await sendOk(mock);

    expect(await getConfig(mock)).toMatchObject({ capacity: 2, captured_messages: 2, dropped_messages: 1 });
    expect((await listMessages(mock)).total).toBe(2);
  });
});

describe("PATCH /_mock/config", () => {
  const shared = sharedMock();

  it("switches the response shape of the next send", async () => {
    const mock = shared();

    const response = await patchConfig(mock, { response_shape: "b" });
    expect(response.status).toBe(200);
    expect((response.body as ConfigView).response_shape).toBe("b");

    const sent = await send(mock);
    expect(sent.status).toBe(200);
    expect(sent.body).toEqual({ status: "success", message: expect.any(String) as unknown, email_id: expect.any(String) as unknown });
    const emailId = (sent.body as { email_id: string }).email_id;
    expect((await mock.outbox.get("latest"))?.id).toBe(emailId);
    expect((await getConfig(mock)).response_shape).toBe("b");
  });

  it("turns on strict_data, so that the next send with an unknown data key is rejected", async () => {
    const mock = shared();
    const withCoupon = { data: { ...aSendRequest().data, coupon: "SPRING" } };
    const lenient = await send(mock, withCoupon);
    expect(lenient.status).toBe(200);

    const response = await patchConfig(mock, { strict_data: true });
    expect((response.body as ConfigView).strict_data).toBe(true);

    const strict = await send(mock, withCoupon);
    expect(strict.status).toBe(422);
    expect(strict.headers["x-sendmock-error-code"]).toBe("unknown_template_data");
  });

  it("sets and removes the rate limit", async () => {
    const mock = shared();

    const set = await patchConfig(mock, { rate_limit: { requests: 5, per_seconds: 1, burst: 10 } });
    expect(set.status).toBe(200);
    expect((set.body as ConfigView).rate_limit).toEqual({ requests: 5, per_seconds: 1, burst: 10 });
    expect((await getConfig(mock)).rate_limit).toEqual({ requests: 5, per_seconds: 1, burst: 10 });

    await patchConfig(mock, { rate_limit: { requests: 3, per_seconds: 60 } });
    expect((await getConfig(mock)).rate_limit).toEqual({ requests: 3, per_seconds: 60, burst: 3 });

    await patchConfig(mock, { rate_limit: null });
    expect((await getConfig(mock)).rate_limit).toBeNull();
  });

  it("keeps the keys a patch leaves out", async () => {
    const mock = shared();
    await patchConfig(mock, { response_shape: "b", strict_data: true });

    await patchConfig(mock, { rate_limit: { requests: 2, per_seconds: 1 } });

    expect(await getConfig(mock)).toMatchObject({ response_shape: "b", strict_data: true, rate_limit: { requests: 2, per_seconds: 1, burst: 2 } });
  });

  it.each([
    ["an unknown key", { port: 4011 }],
    ["a key that cannot change at run time", { capacity: 5 }],
    ["an unknown response shape", { response_shape: "c" }],
    ["a strict_data that is not a boolean", { strict_data: "yes" }],
    ["a rate limit of zero per second", { rate_limit: { requests: 5, per_seconds: 0 } }],
    ["a rate limit without requests", { rate_limit: { per_seconds: 1 } }],
  ])("rejects %s with 400 invalid_request and changes nothing", async (_name, patch) => {
    const mock = shared();

    const response = await patchConfig(mock, patch);

    expectAdminError(response, 400, "invalid_request");
    expect(await getConfig(mock)).toMatchObject({ response_shape: "a", strict_data: false, rate_limit: null, capacity: 10000 });
  });

  it("rejects a body that is not JSON with 400 invalid_json", async () => {
    const mock = shared();

    const response = await checked(
      await request(mock.app).patch("/_mock/config").set("Content-Type", "application/json").send('{"response_shape": '),
      "patch",
      "/_mock/config",
    );

    expectAdminError(response, 400, "invalid_json");
  });
});

describe("POST /_mock/reset", () => {
  it("empties the outbox and the journal and brings the start-up settings back", async () => {
    const mock = await aTrackedMock({ strictData: true, rateLimit: { requests: 100, perSeconds: 1 }, capacity: 1 });
    await sendOk(mock);
    await sendOk(mock);
    await patchConfig(mock, { response_shape: "b", strict_data: false, rate_limit: null });

    const response = await checked(await request(mock.app).post("/_mock/reset"), "post", "/_mock/reset");

    expect(response.status).toBe(204);
    expect(await listMessages(mock)).toEqual({ messages: [], total: 0 });
    expect(await listRequests(mock)).toEqual({ requests: [], total: 0 });
    expect(await getConfig(mock)).toMatchObject({
      response_shape: "a",
      strict_data: true,
      rate_limit: { requests: 100, per_seconds: 1, burst: 100 },
      captured_messages: 0,
      dropped_messages: 0,
    });
    expect((await send(mock)).body).toMatchObject({ success: true });
  });
});

describe("health and the send contract", () => {
  const shared = sharedMock();

  it("answers GET /_mock/health with ok true", async () => {
    const mock = shared();
    const response = await checked(await request(mock.app).get("/_mock/health"), "get", "/_mock/health");
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ ok: true });
  });

  it("serves openapi/send.yaml as application/yaml at GET /openapi.yaml", async () => {
    const mock = shared();

    const response = await checked(await request(mock.app).get("/openapi.yaml").buffer(true), "get", "/openapi.yaml");

    expect(response.status).toBe(200);
    expect(response.headers["content-type"]).toMatch(/^application\/yaml/);
    expect(response.text).toMatch(/^openapi: 3\.1/);
    expect(response.text).toBe(readFileSync(SEND_CONTRACT_FILE, "utf8"));
  });
});

describe("admin_token", () => {
  const shared = sharedMock({ adminToken: ADMIN_TOKEN });

  const calls = [
    ["get", "/_mock/messages", "/_mock/messages"],
    ["delete", "/_mock/messages", "/_mock/messages"],
    ["get", "/_mock/messages/latest", "/_mock/messages/{id}"],
    ["get", "/_mock/messages/latest/html", "/_mock/messages/{id}/html"],
    ["get", "/_mock/requests", "/_mock/requests"],
    ["get", "/_mock/templates", "/_mock/templates"],
    ["get", "/_mock/templates/welcome", "/_mock/templates/{id}"],
    ["get", "/_mock/config", "/_mock/config"],
    ["patch", "/_mock/config", "/_mock/config"],
    ["post", "/_mock/reset", "/_mock/reset"],
    ["get", "/_mock/health", "/_mock/health"],
  ] as const;

  function call(mock: SendMock, method: (typeof calls)[number][0], url: string): request.Test {
    const agent = request(mock.app);
    return method === "patch" ? agent.patch(url).send({ strict_data: true }) : agent[method](url);
  }

  it.each(calls)("answers %s %s without the token with 401 missing_api_key", async (method, url, contractPath) => {
    const mock = shared();
    const response = await checked(await call(mock, method, url), method, contractPath);
    expectAdminError(response, 401, "missing_api_key");
  });

  it.each(calls)("answers %s %s with a wrong token with 401 invalid_api_key", async (method, url, contractPath) => {
    const mock = shared();
    const response = await checked(await call(mock, method, url).set(bearer("admin-secret-2")), method, contractPath);
    expectAdminError(response, 401, "invalid_api_key");
  });

  it("answers every call that carries the token", async () => {
    const mock = shared();
    await sendOk(mock);

    for (const [method, url, contractPath] of calls) {
      const response = await checked(await call(mock, method, url).set(bearer(ADMIN_TOKEN)), method, contractPath);
      expect(response.status, `${method} ${url}`).toBeLessThan(300);
      // DELETE and reset empty the outbox, so send again for the calls after them.
      if (response.status === 204) await sendOk(mock);
    }
  });

  it("shows only that a token is set, never the token", async () => {
    const mock = shared();

    const response = await checked(await request(mock.app).get("/_mock/config").set(bearer(ADMIN_TOKEN)), "get", "/_mock/config");

    expect((response.body as ConfigView).admin_token_set).toBe(true);
    expect(response.text).not.toContain(ADMIN_TOKEN);
  });

  it("leaves POST /send and GET /openapi.yaml to their own rules", async () => {
    const mock = shared();

    expect(await sendOk(mock)).toMatch(/\S/);
    const contract = await checked(await request(mock.app).get("/openapi.yaml").buffer(true), "get", "/openapi.yaml");
    expect(contract.status).toBe(200);
    const withAdminTokenOnly = await send(mock, {}, ADMIN_TOKEN);
    expect(withAdminTokenOnly.status).toBe(200);
  });
});

describe("unknown calls", () => {
  const shared = sharedMock();

  it("answers an unknown path under /_mock with 404 not_found in the admin envelope", async () => {
    const mock = shared();
    const response = await request(mock.app).get("/_mock/nothing-here");
    expectAdminError(response, 404, "not_found");
    expect(response.headers["content-type"]).toMatch(/^application\/json/);
  });

  it("answers an unknown path under /_mock in the admin envelope even when sends answer in shape b", async () => {
    const mock = await aTrackedMock({ responseShape: "b" });
    const response = await request(mock.app).get("/_mock/nothing-here");
    expectAdminError(response, 404, "not_found");
  });

  it("answers a method the contract does not have with 405 method_not_allowed", async () => {
    const mock = shared();
    const response = await request(mock.app).put("/_mock/messages").send({});
    expectAdminError(response, 405, "method_not_allowed");
  });
});

describe("many mocks in one process", () => {
  it("keeps outbox, journal and settings apart", async () => {
    const first = await aTrackedMock();
    const second = await aTrackedMock();

    await sendOk(first);
    await patchConfig(first, { response_shape: "b", strict_data: true });

    expect((await listMessages(first)).total).toBe(1);
    expect(await listMessages(second)).toEqual({ messages: [], total: 0 });
    expect((await listRequests(first)).total).toBe(1);
    expect(await listRequests(second)).toEqual({ requests: [], total: 0 });
    expect(await getConfig(second)).toMatchObject({ response_shape: "a", strict_data: false, captured_messages: 0 });

    await checked(await request(second.app).post("/_mock/reset"), "post", "/_mock/reset");
    expect((await listMessages(first)).total).toBe(1);
    expect((await getConfig(first)).response_shape).toBe("b");
  });
});
