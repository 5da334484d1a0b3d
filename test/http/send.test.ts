// POST /send over HTTP: what a client sees for every accepted and every rejected send, in both response shapes.

import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import request, { type Response } from "supertest";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import YAML from "yaml";
import type { CapturedMessage, ErrorCode, JournalEntry, ResponseShape, SendMock, SendMockOptions, SendRequest, TemplateData } from "../../src/index.js";
import { aMockForThisTest, aSendRequest, API_KEY, bearer, errorCodeOf, expectContract, SHIPPED_TEMPLATES, sharedMock } from "../support/helpers.js";
import { anAcceptedSendEntry } from "../support/journal-entries.js";

const SHAPES: readonly ResponseShape[] = ["a", "b"];

// ---------------------------------------------------------------------------------------------
// Helpers: every response from the mock goes through `expectContract`, whatever its status.
// ---------------------------------------------------------------------------------------------

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

/** POST /send with `body` as JSON and (by default) a valid API key; the response is checked against the contract. */
async function send(mock: SendMock, body: unknown, headers: Record<string, string> = bearer()): Promise<Response> {
  const response = await request(mock.app)
    .post("/send")
    .set(headers)
    .send(body as object);
  await expectContract(response);
  return response;
}

/**
 * POST /send with `raw` as the exact body text, as a client that builds its own bytes would.
 * `contentType: null` sends no Content-Type header at all.
 */
async function sendRaw(mock: SendMock, raw: string, options: { contentType: string | null; headers?: Record<string, string> }): Promise<Response> {
  let call = request(mock.app)
    .post("/send")
    .set(options.headers ?? bearer());
  if (options.contentType !== null) call = call.set("Content-Type", options.contentType);
  call = call.send(raw);
  if (options.contentType === null) call = call.unset("Content-Type");
  const response = await call;
  await expectContract(response);
  return response;
}

/**
 * A call that is not POST /send. There is no contract for an unknown path or method, so the
 * error envelope is checked against the error responses of POST /send, the one contract of the API.
 */
async function callOtherRoute(mock: SendMock, method: "get" | "put" | "delete", route: string): Promise<Response> {
  const response = await request(mock.app)[method](route).set(bearer());
  await expectContract(response);
  return response;
}

/** A send request with `field` left out. */
function without(body: SendRequest, field: keyof SendRequest): Record<string, unknown> {
  return Object.fromEntries(Object.entries(body).filter(([key]) => key !== field));
}

/** The human-readable message of an error response, in either shape. */
function errorMessageOf(response: Response): string {
  const body = response.body as { error?: { message?: unknown }; message?: unknown };
  const message = body.error?.message ?? body.message;
  expect(message, "an error answer carries a message").toBeTypeOf("string");
  return String(message);
}

/** The tracking id of an accepted send, in either shape. */
function messageIdOf(response: Response): string {
  const body = response.body as { message_id?: unknown; email_id?: unknown };
  const id = body.message_id ?? body.email_id;
  expect(id, "an accepted send carries message_id or email_id").toBeTypeOf("string");
  return String(id);
}

interface ExpectedError {
  code: ErrorCode;
  status: number;
  /** What the message must say (a substring or a pattern). */
  says?: string | RegExp;
}

/** Status, `X-Sendmock-Error-Code`, the exact envelope of `shape`, and the message. */
function expectError(response: Response, expected: ExpectedError, shape: ResponseShape = "a"): void {
  expect(response.status).toBe(expected.status);
  expect(errorCodeOf(response)).toBe(expected.code);
  const message = errorMessageOf(response);
  expect(response.body).toEqual(shape === "a" ? { success: false, error: { code: expected.code, message } } : { status: "error", message });
  if (expected.says !== undefined) expect(message).toMatch(expected.says);
}

async function capturedMessages(mock: SendMock): Promise<CapturedMessage[]> {
  return (await mock.outbox.list()).messages;
}

async function latestMessage(mock: SendMock): Promise<CapturedMessage> {
  const message = await mock.outbox.get("latest");
  expect(message, "a message was captured").toBeDefined();
  return message as CapturedMessage;
}

/** The journal entry of the last request to /send. */
async function lastJournalEntry(mock: SendMock): Promise<JournalEntry> {
  const [entry] = (await mock.journal.list({ limit: 1 })).requests;
  expect(entry, "the request is in the journal").toBeDefined();
  return entry as JournalEntry;
}

const WELCOME_DATA: TemplateData = { name: "Ada", company: "Analytical Engines", login_url: "https://app.example.com/login" };

// ---------------------------------------------------------------------------------------------

describe("the rules of the send API (spec section 4.1)", () => {
  const shared = sharedMock();
  let mock: SendMock;
  beforeEach(() => {
    mock = shared();
  });

  it.each(["to", "template_id", "data"] as const)("rejects a request without %s with 400 missing_required_field naming the field", async (field) => {
    const response = await send(mock, without(aSendRequest(), field));

    expectError(response, { code: "missing_required_field", status: 400, says: new RegExp(`required field.*\\b${field}\\b`, "i") });
  });

  it("rejects an unknown template_id with 422 invalid_template_id, saying the template ID is invalid", async () => {
    const response = await send(mock, aSendRequest({ template_id: "wellcome" }));

    expectError(response, { code: "invalid_template_id", status: 422, says: /invalid template id/i });
    expect(errorMessageOf(response)).toContain("wellcome");
  });

  it("rejects a `to` that is not an email address with 422 invalid_recipient", async () => {
    const response = await send(mock, aSendRequest({ to: "not-an-address" }));

    expectError(response, { code: "invalid_recipient", status: 422, says: "not-an-address" });
  });

  it("uses the request's subject instead of the template's default subject", async () => {
    const response = await send(mock, aSendRequest({ subject: "Your account is ready" }));

    expect(response.status).toBe(200);
    expect((await latestMessage(mock)).subject).toBe("Your account is ready");
  });

  it("takes the request's subject verbatim: braces in it are not placeholders", async () => {
    const response = await send(mock, aSendRequest({ subject: "Hi {name}, {{company}} says {nope}" }));

    expect(response.status).toBe(200);
    expect((await latestMessage(mock)).subject).toBe("Hi {name}, {{company}} says {nope}");
  });

  it("keeps the template's default subject, rendered, when the request has none", async () => {
    await send(mock, aSendRequest());

    expect((await latestMessage(mock)).subject).toBe("Welcome to Analytical Engines, Ada!");
  });
});

describe.each(SHAPES)("an accepted send in shape %s", (shape) => {
  const shared = sharedMock({ responseShape: shape });
  let mock: SendMock;
  beforeEach(() => {
    mock = shared();
  });

  it("answers 200 with the success body of its shape", async () => {
    const response = await send(mock, aSendRequest());

    expect(response.status).toBe(200);
    const id = messageIdOf(response);
    expect(response.body).toEqual(
      shape === "a"
        ? { success: true, message_id: id, status: "queued" }
        : { status: "success", message: expect.stringContaining("ada@example.com") as unknown, email_id: id },
    );
    expect(response.headers["x-sendmock-error-code"]).toBeUndefined();
  });

  it(`carries the ${shape === "a" ? "message_id" : "email_id"} of the captured message, for tracking`, async () => {
    const response = await send(mock, aSendRequest());

    const message = await latestMessage(mock);
    expect(messageIdOf(response)).toBe(message.id);
    expect(await mock.outbox.get(messageIdOf(response))).toEqual(message);
  });

  it("gives every accepted send its own id", async () => {
    const first = messageIdOf(await send(mock, aSendRequest()));
    const second = messageIdOf(await send(mock, aSendRequest()));

    expect(first).not.toBe(second);
    expect((await capturedMessages(mock)).map((message) => message.id)).toEqual([second, first]);
  });
});

// ---------------------------------------------------------------------------------------------
// The error table of the interface (section 2), row by row, in both shapes.
// ---------------------------------------------------------------------------------------------

interface ErrorCase extends ExpectedError {
  /** What the client did. */
  condition: string;
  options?: SendMockOptions;
  act: (mock: SendMock) => Promise<Response>;
  /** Headers the response must carry besides X-Sendmock-Error-Code. */
  headers?: Record<string, string>;
}

const aBodyOf2Kb = (): SendRequest => aSendRequest({ data: { ...WELCOME_DATA, name: "x".repeat(2048) } });

const ERROR_CASES: ErrorCase[] = [
  {
    condition: "no Authorization header",
    act: (mock) => send(mock, aSendRequest(), {}),
    code: "missing_api_key",
    status: 401,
    says: /missing api key/i,
  },
  {
    condition: "Authorization: Basic x",
    act: (mock) => send(mock, aSendRequest(), { Authorization: "Basic x" }),
    code: "missing_api_key",
    status: 401,
    says: /Bearer/,
  },
  {
    condition: "a Bearer scheme with an empty token",
    act: (mock) => send(mock, aSendRequest(), { Authorization: "Bearer " }),
    code: "missing_api_key",
    status: 401,
    says: /missing api key/i,
  },
  {
    condition: "a key that is not one of api_keys",
    options: { apiKeys: ["k1-aaaa-bbbb"] },
    act: (mock) => send(mock, aSendRequest(), bearer("k2-cccc-dddd")),
    code: "invalid_api_key",
    status: 401,
    says: /invalid api key/i,
  },
  {
    condition: "no Content-Type",
    act: (mock) => sendRaw(mock, JSON.stringify(aSendRequest()), { contentType: null }),
    code: "unsupported_media_type",
    status: 415,
    says: "application/json",
  },
  {
    condition: "Content-Type: text/plain",
    act: (mock) => sendRaw(mock, JSON.stringify(aSendRequest()), { contentType: "text/plain" }),
    code: "unsupported_media_type",
    status: 415,
    says: "text/plain",
  },
  {
    condition: "a malformed JSON body",
    act: (mock) => sendRaw(mock, '{"to": "ada@example.com",', { contentType: "application/json" }),
    code: "invalid_json",
    status: 400,
    says: /invalid json/i,
  },
  {
    condition: "a JSON array",
    act: (mock) => sendRaw(mock, JSON.stringify([aSendRequest()]), { contentType: "application/json" }),
    code: "invalid_json",
    status: 400,
    says: /array/,
  },
  {
    condition: "JSON null",
    act: (mock) => sendRaw(mock, "null", { contentType: "application/json" }),
    code: "invalid_json",
    status: 400,
    says: /null/,
  },
  {
    condition: "a JSON number",
    act: (mock) => sendRaw(mock, "42", { contentType: "application/json" }),
    code: "invalid_json",
    status: 400,
    says: /number/,
  },
  {
    condition: "a JSON string",
    act: (mock) => sendRaw(mock, '"hello"', { contentType: "application/json" }),
    code: "invalid_json",
    status: 400,
    says: /string/,
  },
  {
    condition: "an empty body",
    act: (mock) => sendRaw(mock, "", { contentType: "application/json" }),
    code: "invalid_json",
    status: 400,
    says: /invalid json/i,
  },
  {
    condition: "a 2 KB body over body_limit 1kb",
    options: { bodyLimit: "1kb" },
    act: (mock) => send(mock, aBodyOf2Kb()),
    code: "payload_too_large",
    status: 413,
    says: /limit/,
  },
  {
    condition: "no template_id",
    act: (mock) => send(mock, without(aSendRequest(), "template_id")),
    code: "missing_required_field",
    status: 400,
    says: "template_id",
  },
  {
    condition: 'data: "x" (not an object)',
    act: (mock) => send(mock, { ...aSendRequest(), data: "x" }),
    code: "invalid_request",
    status: 400,
    says: /\bdata\b/,
  },
  {
    condition: "a number as a data value",
    act: (mock) => send(mock, { ...aSendRequest(), data: { ...WELCOME_DATA, name: 42 } }),
    code: "invalid_request",
    status: 400,
    says: "data.name",
  },
  {
    condition: "an unknown top-level field",
    act: (mock) => send(mock, { ...aSendRequest(), priority: "high" }),
    code: "invalid_request",
    status: 400,
    says: "priority",
  },
  {
    condition: "a reply_to that is not an address",
    act: (mock) => send(mock, aSendRequest({ reply_to: "support-at-example.com" })),
    code: "invalid_request",
    status: 400,
    says: "reply_to",
  },
  {
    condition: "a subject with CR/LF (header injection)",
    act: (mock) => send(mock, aSendRequest({ subject: "Hello\r\nBcc: victim@example.com" })),
    code: "invalid_request",
    status: 400,
    says: "subject",
  },
  {
    condition: "cc that is a string, not an array",
    act: (mock) => send(mock, { ...aSendRequest(), cc: "grace@example.com" }),
    code: "invalid_request",
    status: 400,
    says: /\bcc\b/,
  },
  {
    condition: "a `to` without a top-level domain (a@b)",
    act: (mock) => send(mock, aSendRequest({ to: "a@b" })),
    code: "invalid_recipient",
    status: 422,
    says: /\bto\b.*a@b/,
  },
  {
    condition: "a bad second cc address",
    act: (mock) => send(mock, aSendRequest({ cc: ["grace@example.com", "not-an-address"] })),
    code: "invalid_recipient",
    status: 422,
    says: "cc[1]",
  },
  {
    condition: "a bad bcc address",
    act: (mock) => send(mock, aSendRequest({ bcc: ["audit@"] })),
    code: "invalid_recipient",
    status: 422,
    says: "bcc[0]",
  },
  {
    condition: "a template_id that names no template",
    act: (mock) => send(mock, aSendRequest({ template_id: "wellcome" })),
    code: "invalid_template_id",
    status: 422,
    says: /invalid template id/i,
  },
  {
    condition: "data without a value for a placeholder",
    act: (mock) => send(mock, aSendRequest({ data: { name: "Ada", company: "Analytical Engines" } })),
    code: "missing_template_data",
    status: 422,
    says: "data.login_url",
  },
  {
    condition: "a data key that matches no placeholder, with strict_data",
    options: { strictData: true },
    act: (mock) => send(mock, aSendRequest({ data: { ...WELCOME_DATA, nickname: "Countess" } })),
    code: "unknown_template_data",
    status: 422,
    says: "data.nickname",
  },
  {
    condition: "GET /nope (an unknown path)",
    act: (mock) => callOtherRoute(mock, "get", "/nope"),
    code: "not_found",
    status: 404,
    says: "/nope",
  },
  {
    condition: "GET /send (a wrong method)",
    act: (mock) => callOtherRoute(mock, "get", "/send"),
    code: "method_not_allowed",
    status: 405,
    says: "GET",
    headers: { allow: "POST" },
  },
];

describe.each(SHAPES)("error answers in shape %s", (shape) => {
  const shared = sharedMock({ responseShape: shape });

  it.each(ERROR_CASES)("$code ($status) for $condition", async ({ options, act, code, status, says, headers }) => {
    const mock = options === undefined ? shared() : await aMockForThisTest({ ...options, responseShape: shape });

    const response = await act(mock);

    expectError(response, { code, status, ...(says !== undefined && { says }) }, shape);
    expect(response.headers).toMatchObject({ "x-sendmock-error-code": code, ...headers });
  });
});

describe("authentication and content type", () => {
  const shared = sharedMock();

  it("accepts a key listed in api_keys", async () => {
    const mock = await aMockForThisTest({ apiKeys: ["k1-aaaa-bbbb"] });

    const response = await send(mock, aSendRequest(), bearer("k1-aaaa-bbbb"));

    expect(response.status).toBe(200);
    expect((await latestMessage(mock)).api_key_hint).toBe("bbbb");
  });

  it("accepts any non-empty bearer token when api_keys is not set", async () => {
    const mock = shared();

    const response = await send(mock, aSendRequest(), bearer("anything-goes"));

    expect(response.status).toBe(200);
  });

  it("accepts Content-Type application/json with a charset parameter", async () => {
    const mock = shared();

    const response = await sendRaw(mock, JSON.stringify(aSendRequest()), { contentType: "application/json; charset=utf-8" });

    expect(response.status).toBe(200);
    expect(await capturedMessages(mock)).toHaveLength(1);
  });

  it("accepts a body just under body_limit", async () => {
    const mock = await aMockForThisTest({ bodyLimit: "1kb" });
    const body = aSendRequest();
    body.data = { ...WELCOME_DATA, name: "x".repeat(1000 - JSON.stringify(body).length) };

    const response = await send(mock, body);

    expect(response.status).toBe(200);
  });
});

// ---------------------------------------------------------------------------------------------

describe("messages and violations name the field at fault", () => {
  const shared = sharedMock();
  let mock: SendMock;
  beforeEach(() => {
    mock = shared();
  });

  it.each([
    { field: "to", pointer: "/to", body: aSendRequest({ to: "a@b" }) },
    { field: "cc[1]", pointer: "/cc/1", body: aSendRequest({ cc: ["grace@example.com", "nope"] }) },
    { field: "bcc[0]", pointer: "/bcc/0", body: aSendRequest({ bcc: ["nope"] }) },
    { field: "data.name", pointer: "/data/name", body: { ...aSendRequest(), data: { ...WELCOME_DATA, name: 42 } } },
    { field: "data.name[1]", pointer: "/data/name/1", body: { ...aSendRequest(), data: { ...WELCOME_DATA, name: ["Ada", 1] } } },
    { field: "reply_to", pointer: "/reply_to", body: aSendRequest({ reply_to: "nope" }) },
  ])("names $field in the message and $pointer in the journal's violations", async ({ field, pointer, body }) => {
    const response = await send(mock, body);

    expect(errorMessageOf(response)).toContain(field);
    const entry = await lastJournalEntry(mock);
    expect(entry.violations).toContainEqual({ path: pointer, message: expect.stringContaining(field) as unknown });
  });

  it("names every missing field at once, with a pointer for each", async () => {
    const response = await send(mock, { to: "ada@example.com" });

    expectError(response, { code: "missing_required_field", status: 400 });
    expect(errorMessageOf(response)).toMatch(/template_id.*data|data.*template_id/);
    const paths = (await lastJournalEntry(mock)).violations.map((violation) => violation.path);
    expect(paths).toEqual(expect.arrayContaining(["/template_id", "/data"]));
  });

  it("records /headers/authorization as the violation of a missing key", async () => {
    await send(mock, aSendRequest(), {});

    expect((await lastJournalEntry(mock)).violations).toEqual([{ path: "/headers/authorization", message: expect.any(String) as unknown }]);
  });

  it("quotes the value at fault in an invalid_recipient message", async () => {
    const response = await send(mock, aSendRequest({ cc: ["grace@example.com", "grace@@example.com"] }));

    expect(errorMessageOf(response)).toContain("grace@@example.com");
  });
});

// ---------------------------------------------------------------------------------------------

describe("the order of the checks (interface section 2)", () => {
  const shared = sharedMock();
  let mock: SendMock;
  beforeEach(() => {
    mock = shared();
  });

  it("checks the API key before the content type", async () => {
    const response = await sendRaw(mock, JSON.stringify(aSendRequest()), { contentType: "text/plain", headers: {} });

    expectError(response, { code: "missing_api_key", status: 401 });
  });

  it("checks the content type before parsing the JSON", async () => {
    const response = await sendRaw(mock, "{not json", { contentType: "text/plain" });

    expectError(response, { code: "unsupported_media_type", status: 415 });
  });

  it("parses the JSON before checking the contract", async () => {
    const response = await sendRaw(mock, '{"template_id": ', { contentType: "application/json" });

    expectError(response, { code: "invalid_json", status: 400 });
  });

  it("checks the contract before looking the template up", async () => {
    const response = await send(mock, aSendRequest({ to: "a@b", template_id: "wellcome" }));

    expectError(response, { code: "invalid_recipient", status: 422 });
  });

  it("reports a missing field before a bad recipient", async () => {
    const response = await send(mock, without(aSendRequest({ to: "a@b" }), "data"));

    expectError(response, { code: "missing_required_field", status: 400, says: /\bdata\b/ });
  });

  it("looks the template up before checking its data", async () => {
    const response = await send(mock, aSendRequest({ template_id: "wellcome", data: {} }));

    expectError(response, { code: "invalid_template_id", status: 422 });
  });
});

describe.each(SHAPES)("status_codes overrides in shape %s", (shape) => {
  const shared = sharedMock({ responseShape: shape, statusCodes: { invalid_recipient: 400, invalid_template_id: 404 } });
  let mock: SendMock;
  beforeEach(() => {
    mock = shared();
  });

  it("answers invalid_recipient with the configured 400", async () => {
    const response = await send(mock, aSendRequest({ to: "a@b" }));

    expectError(response, { code: "invalid_recipient", status: 400 }, shape);
  });

  it("answers invalid_template_id with the configured 404", async () => {
    const response = await send(mock, aSendRequest({ template_id: "wellcome" }));

    expectError(response, { code: "invalid_template_id", status: 404, says: /invalid template id/i }, shape);
  });

  it("leaves the other codes at their default status", async () => {
    const response = await send(mock, aSendRequest({ data: { name: "Ada" } }));

    expectError(response, { code: "missing_template_data", status: 422 }, shape);
  });
});

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

// ---------------------------------------------------------------------------------------------

describe("the captured message", () => {
  const SECRET_KEY = "secret-key-123456789";
  const shared = sharedMock({ apiKeys: [SECRET_KEY] });
  let mock: SendMock;
  beforeEach(() => {
    mock = shared();
  });

  it("has every field of the interface", async () => {
    const before = Date.now();
    const body = aSendRequest({
      to: "ada@example.com",
      cc: ["grace@example.com", "linus@example.com"],
      bcc: ["audit@example.com"],
      reply_to: "support@example.com",
    });

    const response = await send(mock, body, bearer(SECRET_KEY));

    const message = await latestMessage(mock);
    expect(message).toEqual({
      id: messageIdOf(response),
      status: "queued",
      events: [],
      created_at: expect.any(String) as unknown,
      to: "ada@example.com",
      cc: ["grace@example.com", "linus@example.com"],
      bcc: ["audit@example.com"],
      reply_to: "support@example.com",
      template_id: "welcome",
      subject: "Welcome to Analytical Engines, Ada!",
      html: expect.stringContaining("Welcome aboard, Ada!") as unknown,
      text: expect.stringContaining("Log in to your account: https://app.example.com/login") as unknown,
      data: WELCOME_DATA,
      warnings: [],
      links: ["https://app.example.com/login"],
      api_key_hint: "6789",
    });
    expect(new Date(message.created_at).toISOString()).toBe(message.created_at);
    expect(Date.parse(message.created_at)).toBeGreaterThanOrEqual(before - 1);
    expect(Date.parse(message.created_at)).toBeLessThanOrEqual(Date.now());
  });

  it("has empty cc and bcc lists and a null reply_to when the request has none", async () => {
    await send(mock, aSendRequest(), bearer(SECRET_KEY));

    expect(await latestMessage(mock)).toMatchObject({ cc: [], bcc: [], reply_to: null });
  });

  it("never shows the full API key: not in the outbox, the journal, /_mock/config or the answers", async () => {
    const wrongKey = "wrong-key-987654321";
    const responses = [
      await send(mock, aSendRequest(), bearer(SECRET_KEY)),
      await send(mock, aSendRequest({ template_id: "wellcome" }), bearer(SECRET_KEY)),
      await send(mock, aSendRequest(), bearer(wrongKey)),
    ];
    const config = await request(mock.app).get("/_mock/config");
    await expectContract(config, { contract: "admin", method: "get", path: "/_mock/config" });
    const messagesPage = await request(mock.app).get("/_mock/messages");
    const journalPage = await request(mock.app).get("/_mock/requests");

    expect(responses.map((response) => response.status)).toEqual([200, 422, 401]);
    expect(config.status).toBe(200);
    const everything = [
      JSON.stringify(await mock.outbox.list()),
      JSON.stringify(await mock.journal.list()),
      JSON.stringify(config.body),
      messagesPage.text,
      journalPage.text,
      ...responses.map((response) => JSON.stringify({ body: response.body as unknown, headers: response.headers })),
    ].join("\n");
    expect(everything).toContain("6789");
    expect(everything).not.toContain(SECRET_KEY);
    expect(everything).not.toContain("123456789");
    expect(everything).not.toContain(wrongKey);
  });
});

// ---------------------------------------------------------------------------------------------

describe("capture and journal", () => {
  const shared = sharedMock();
  let mock: SendMock;
  beforeEach(() => {
    mock = shared();
  });

  it("does not capture a rejected request", async () => {
    await send(mock, aSendRequest({ to: "a@b" }));
    await send(mock, aSendRequest({ template_id: "wellcome" }));
    await send(mock, aSendRequest(), {});

    expect(await capturedMessages(mock)).toEqual([]);
    expect(await mock.outbox.get("latest")).toBeUndefined();
  });

  it("records an accepted request with its status and message_id", async () => {
    const response = await send(mock, aSendRequest());

    expect(await lastJournalEntry(mock)).toMatchObject(anAcceptedSendEntry({ message_id: messageIdOf(response), api_key_hint: API_KEY.slice(-4) }));
  });

  it("records a rejected request with its status, error_code and error_message, and no message_id", async () => {
    const response = await send(mock, aSendRequest({ template_id: "wellcome" }));

    expect(await lastJournalEntry(mock)).toMatchObject({
      status: 422,
      error_code: "invalid_template_id",
      error_message: errorMessageOf(response),
      message_id: null,
      template_id: "wellcome",
    });
  });

  it("records every request to /send, accepted or rejected, newest first", async () => {
    const accepted = await send(mock, aSendRequest());
    await send(mock, aSendRequest(), {});
    await sendRaw(mock, "[]", { contentType: "application/json" });
    await sendRaw(mock, "{}", { contentType: "text/plain" });
    await send(mock, aSendRequest({ data: {} }));
    await callOtherRoute(mock, "get", "/send");

    const { requests, total } = await mock.journal.list();
    expect(total).toBe(6);
    expect(requests.map((entry) => [entry.status, entry.error_code])).toEqual([
      [405, "method_not_allowed"],
      [422, "missing_template_data"],
      [415, "unsupported_media_type"],
      [400, "invalid_json"],
      [401, "missing_api_key"],
      [200, null],
    ]);
    expect(requests.map((entry) => entry.message_id)).toEqual([null, null, null, null, null, messageIdOf(accepted)]);
    expect(requests.every((entry) => entry.error_code === null || (entry.error_message ?? "").length > 0)).toBe(true);
  });
});
