// POST /send refused: the interface's error table row by row in both shapes, then the keys, content types and sizes it accepts.

import type { Response } from "supertest";
import { describe, expect, it } from "vitest";
import type { SendMock, SendMockOptions, SendRequest } from "../../src/index.js";
import { expectError, type ExpectedError, SHAPES } from "../support/error-responses.js";
import { aMockForThisTest, aSendRequest, bearer, sharedMock } from "../support/helpers.js";
import { callOtherRoute, capturedMessages, latestMessage, send, sendRaw, WELCOME_DATA, without } from "../support/send-calls.js";

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
