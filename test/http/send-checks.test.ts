// POST /send's rules (spec section 4.1), the field each message and violation names, the order of the checks, and status_codes overrides.

import { beforeEach, describe, expect, it } from "vitest";
import type { SendMock } from "../../src/index.js";
import { errorMessageOf, expectError, SHAPES } from "../support/error-responses.js";
import { aSendRequest, sharedMock } from "../support/helpers.js";
import { lastJournalEntry, latestMessage, send, sendRaw, WELCOME_DATA, without } from "../support/send-calls.js";

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
