// An accepted POST /send: its response in both shapes, the captured message with every field, and what the journal records of every send.

import request from "supertest";
import { beforeEach, describe, expect, it } from "vitest";
import type { SendMock } from "../../src/index.js";
import { errorMessageOf, SHAPES } from "../support/error-responses.js";
import { API_KEY, aSendRequest, bearer, expectContract, sharedMock } from "../support/helpers.js";
import { anAcceptedSendEntry } from "../support/journal-entries.js";
import { callOtherRoute, capturedMessages, lastJournalEntry, latestMessage, messageIdOf, send, sendRaw, WELCOME_DATA } from "../support/send-calls.js";

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
