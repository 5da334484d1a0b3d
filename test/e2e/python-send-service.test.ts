// The Python stand-in for the real send service (test/support/send_service.py) behaves as its brief says: the conforming service, and each bug variant's one bug.

import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { pythonServiceMissing, startPythonSendService, type PythonSendService, type PythonServiceVariant } from "../support/python-send-service.js";

const skipReason = pythonServiceMissing();

interface Answer {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

let keys = 0;
/** A key of its own for each call, so no test eats into another's rate limit. */
const freshKey = (): string => `key-${String(++keys)}`;

/** Asymmetric matchers, typed unknown rather than any. */
const ANY_STRING = expect.any(String) as unknown;
const REQUEST_ID = expect.stringMatching(/^req_[0-9a-f]+$/) as unknown;

const welcome = { to: "ada@example.com", template_id: "welcome", data: { name: "Ada", company: ["Analytical", "Engines"] } };
const withoutData = { to: welcome.to, template_id: welcome.template_id };

async function send(
  service: PythonSendService,
  body: unknown,
  {
    key = freshKey(),
    method = "POST",
    contentType = "application/json",
    path = "/send",
  }: { key?: string | null; method?: string; contentType?: string; path?: string } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { "content-type": contentType };
  if (key !== null) headers.authorization = `Bearer ${key}`;
  const response = await fetch(`${service.url}${path}`, {
    method,
    headers,
    ...(method === "GET" || method === "HEAD" ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, unknown> };
}

const shapeA = (code: string): Record<string, unknown> => ({
  success: false,
  error: { code, message: ANY_STRING },
  request_id: REQUEST_ID,
});

describe.skipIf(skipReason !== undefined)(`the Python send service${skipReason === undefined ? "" : ` (skipped: ${skipReason})`}`, () => {
  const services = new Map<PythonServiceVariant, PythonSendService>();
  const service = (variant: PythonServiceVariant): PythonSendService => {
    const started = services.get(variant);
    if (started === undefined) throw new Error(`${variant} did not start`);
    return started;
  };

  beforeAll(async () => {
    const variants: PythonServiceVariant[] = ["conforming", "no-id-with-subject", "500-on-non-ascii-subject", "wrong-404-body", "data-optional"];
    const started = await Promise.all(variants.map((variant) => startPythonSendService(variant)));
    variants.forEach((variant, index) => services.set(variant, started[index] as PythonSendService));
  });

  afterAll(async () => Promise.all([...services.values()].map((started) => started.close())));

  it("accepts a send with 202, a message_id, status queued and an extra request_id, and prints the request", async () => {
    const conforming = service("conforming");
    const answer = await send(conforming, welcome);
    expect(answer.status).toBe(202);
    expect(answer.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(answer.body).toEqual({
      success: true,
      message_id: expect.stringMatching(/^[0-9a-f-]{36}$/) as unknown,
      status: "queued",
      request_id: REQUEST_ID,
    });
    await vi.waitFor(() => expect(conforming.received).toContainEqual({ method: "POST", path: "/send", status: 202, body: JSON.stringify(welcome) }));
  });

  it("answers 401 without a usable Bearer key and 403 for the refused key", async () => {
    const missing = await send(service("conforming"), welcome, { key: null });
    expect([missing.status, missing.body]).toEqual([401, shapeA("unauthorized")]);
    const refused = await send(service("conforming"), welcome, { key: "refused-key" });
    expect([refused.status, refused.body]).toEqual([403, shapeA("forbidden")]);
  });

  it("answers another method on /send with 405 and Allow: POST, another path with 404 in shape B", async () => {
    const get = await send(service("conforming"), undefined, { method: "GET" });
    expect([get.status, get.headers.get("allow"), get.body]).toEqual([405, "POST", shapeA("method_not_allowed")]);
    const elsewhere = await send(service("conforming"), welcome, { path: "/v1/send" });
    expect([elsewhere.status, elsewhere.body]).toEqual([404, { status: "error", message: "Not found", request_id: ANY_STRING }]);
  });

  it("answers a body that is not JSON with 415 or 400", async () => {
    const text = await send(service("conforming"), welcome, { contentType: "text/plain" });
    expect([text.status, text.body]).toEqual([415, shapeA("unsupported_media_type")]);
    const broken = await send(service("conforming"), "{ not json", { contentType: "Application/JSON; charset=utf-8" });
    expect([broken.status, broken.body]).toEqual([400, shapeA("bad_request")]);
    const array = await send(service("conforming"), [welcome]);
    expect([array.status, array.body]).toEqual([400, shapeA("bad_request")]);
  });

  it("answers a missing required field with 422 in shape B, an invalid recipient with invalid_recipient", async () => {
    const missing = await send(service("conforming"), withoutData);
    expect([missing.status, missing.body]).toEqual([422, { status: "error", message: "data is required", request_id: ANY_STRING }]);
    const recipient = await send(service("conforming"), { ...welcome, to: "ada@localhost" });
    expect([recipient.status, recipient.body]).toEqual([422, shapeA("invalid_recipient")]);
    const stray = await send(service("conforming"), { ...welcome, data: { nickname: "A" } });
    expect([stray.status, stray.body]).toEqual([422, shapeA("validation_error")]);
  });

  it("answers an unknown template with 404 template_not_found whose message says the ID is invalid", async () => {
    const answer = await send(service("conforming"), { ...welcome, template_id: "farewell" });
    expect(answer.status).toBe(404);
    expect(answer.body).toEqual({
      success: false,
      error: { code: "template_not_found", message: "Invalid template ID: farewell" },
      request_id: ANY_STRING,
    });
  });

  it("no-id-with-subject: a send with a subject gets no message_id; one without does", async () => {
    const withSubject = await send(service("no-id-with-subject"), { ...welcome, subject: "Hi" });
    expect(withSubject.status).toBe(202);
    expect(withSubject.body).not.toHaveProperty("message_id");
    expect((await send(service("no-id-with-subject"), welcome)).body).toHaveProperty("message_id");
    expect((await send(service("conforming"), { ...welcome, subject: "Hi" })).body).toHaveProperty("message_id");
  });

  it("500-on-non-ascii-subject: a rendered subject past U+007F fails with 500 in shape B; an ASCII one is accepted", async () => {
    const nonAscii = await send(service("500-on-non-ascii-subject"), { ...welcome, data: { name: "Zoë" } });
    expect([nonAscii.status, nonAscii.body]).toEqual([500, { status: "error", message: "Internal server error", request_id: ANY_STRING }]);
    expect((await send(service("500-on-non-ascii-subject"), { ...welcome, subject: "Grüße" })).status).toBe(500);
    expect((await send(service("500-on-non-ascii-subject"), welcome)).status).toBe(202);
    expect((await send(service("conforming"), { ...welcome, data: { name: "Zoë" } })).status).toBe(202);
  });

  it("wrong-404-body: an unknown template gets a body in neither error shape", async () => {
    const answer = await send(service("wrong-404-body"), { ...welcome, template_id: "farewell" });
    expect(answer.status).toBe(404);
    expect(answer.body).toEqual({ detail: "template not found", request_id: ANY_STRING });
    expect((await send(service("wrong-404-body"), welcome)).status).toBe(202);
  });

  it("data-optional: a send without data is accepted", async () => {
    expect((await send(service("data-optional"), withoutData)).status).toBe(202);
    expect((await send(service("data-optional"), { ...welcome, data: "Ada" })).status).toBe(422);
  });

  it("lets 5 requests a second through per key and answers the 6th with 429 and Retry-After: 1", async () => {
    const spaced = freshKey();
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await send(service("conforming"), welcome, { key: spaced })).status);
    expect(statuses).toEqual([202, 202, 202, 202, 202]);

    const burst = freshKey();
    const answers = await Promise.all(Array.from({ length: 6 }, () => send(service("conforming"), welcome, { key: burst })));
    expect(answers.filter((answer) => answer.status === 202)).toHaveLength(5);
    const limited = answers.filter((answer) => answer.status === 429);
    expect(limited).toHaveLength(1);
    expect([limited[0]?.headers.get("retry-after"), limited[0]?.body]).toEqual(["1", shapeA("rate_limit_exceeded")]);
    // The limit is per key: another key is let through at the same moment.
    expect((await send(service("conforming"), welcome)).status).toBe(202);
  });
});
