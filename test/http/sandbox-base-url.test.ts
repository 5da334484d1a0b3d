// The sandbox base URL (docs/sandboxes.md): `POST {url}/sandbox/NAME/send` lands in sandbox NAME as the header would, so an
// app in any language is isolated by the base URL its send client is given.

import request from "supertest";
import { describe, expect, it } from "vitest";
import { aMockForThisTest, aSendRequest, bearer } from "../support/helpers.js";
import type { SendMock } from "../../src/mock.js";

interface SendResult {
  status: number;
  body: { message_id: string; error: { code: string; message: string } };
}

async function sendTo(mock: SendMock, path: string, body: object = aSendRequest(), headers: Record<string, string> = {}): Promise<SendResult> {
  const response = await request(mock.app)
    .post(path)
    .set({ ...bearer(), ...headers })
    .send(body);
  return { status: response.status, body: response.body as SendResult["body"] };
}

describe("a sandbox base URL", () => {
  it("sends into its sandbox alone: the message, its journal entry and the path the journal shows", async () => {
    const mock = await aMockForThisTest();
    const response = await sendTo(mock, "/sandbox/billing-7/send");
    expect(response.status).toBe(200);

    const box = await mock.sandbox("billing-7");
    expect((await box.outbox.list()).messages).toMatchObject([{ id: response.body.message_id, sandbox: "billing-7" }]);
    expect((await box.journal.list()).requests).toMatchObject([{ path: "/sandbox/billing-7/send", status: 200, sandbox: "billing-7" }]);
    expect((await mock.outbox.list()).messages.filter((message) => message.sandbox === undefined)).toEqual([]);
  });

  it("wins over a recipient that names another sandbox, as the header does", async () => {
    const mock = await aMockForThisTest();
    const response = await sendTo(mock, "/sandbox/from-path/send", aSendRequest({ to: "ada@from-address.sandbox.sendmock.test" }));
    expect(response.status).toBe(200);
    expect((await (await mock.sandbox("from-path")).outbox.list()).total).toBe(1);
    expect((await (await mock.sandbox("from-address")).outbox.list()).total).toBe(0);
  });

  it("takes a header naming the same sandbox", async () => {
    const mock = await aMockForThisTest();
    const response = await sendTo(mock, "/sandbox/same/send", aSendRequest(), { "X-Sendmock-Sandbox": "same" });
    expect(response.status).toBe(200);
    expect((await (await mock.sandbox("same")).outbox.list()).total).toBe(1);
  });

  it("refuses a header naming another sandbox with 400 invalid_request naming both, capturing nothing", async () => {
    const mock = await aMockForThisTest();
    const response = await sendTo(mock, "/sandbox/one/send", aSendRequest(), { "X-Sendmock-Sandbox": "two" });
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe("invalid_request");
    expect(response.body.error.message).toContain('names the sandbox "one"');
    expect(response.body.error.message).toContain('names "two"');
    expect((await mock.outbox.list()).total).toBe(0);
  });

  it.each([
    ["a space", "/sandbox/worker%201/send", 'got "worker%201"'],
    ["65 characters", `/sandbox/${"a".repeat(65)}/send`, "1 to 64"],
    ["no name", "/sandbox//send", 'got ""'],
  ])("refuses a path naming %s with 400 invalid_request in the send API's shape", async (_what, path, words) => {
    const mock = await aMockForThisTest();
    const response = await sendTo(mock, path);
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code: "invalid_request", message: expect.stringContaining(words) as unknown });
  });

  it("is the send operation in every other way: another method is 405, a bad key 401, a bad body 400", async () => {
    const mock = await aMockForThisTest({ apiKeys: ["right-key-1234"] });
    const get = await request(mock.app).get("/sandbox/a/send");
    expect(get.status).toBe(405);
    expect(get.headers.allow).toBe("POST");
    expect((await sendTo(mock, "/sandbox/a/send")).status).toBe(401);
    const bad = await request(mock.app).post("/sandbox/a/send").set("Authorization", "Bearer right-key-1234").send({ to: "ada@example.com" });
    expect(bad.status).toBe(400);
    expect((bad.body as SendResult["body"]).error.code).toBe("missing_required_field");
  });

  it("journals a refusal before the sandbox step (another method, a missing key) in the sandbox the path names, where its test looks", async () => {
    const mock = await aMockForThisTest({ apiKeys: ["right-key-1234"] });
    expect((await request(mock.app).get("/sandbox/billing-7/send")).status).toBe(405);
    expect((await request(mock.app).post("/sandbox/billing-7/send").send(aSendRequest())).status).toBe(401);
    const box = await mock.sandbox("billing-7");
    expect((await box.journal.list()).requests.map((entry) => [entry.status, entry.error_code, entry.sandbox])).toEqual([
      [401, "missing_api_key", "billing-7"],
      [405, "method_not_allowed", "billing-7"],
    ]);
    expect((await mock.journal.list()).total).toBe(0);
  });

  it("is a base URL only for /send: other paths under it are 404 not_found", async () => {
    const mock = await aMockForThisTest();
    const response = await request(mock.app).post("/sandbox/a/other").set(bearer()).send(aSendRequest());
    expect(response.status).toBe(404);
    expect((response.body as SendResult["body"]).error.code).toBe("not_found");
  });
});
