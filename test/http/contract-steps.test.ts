// POST /send held to openapi/send.yaml by sendmock's own checks: a response that would break the
// contract is never sent (a server_error names the violation instead), and a request that breaks
// it is refused with the same words express-openapi-validator gave.

import type { RequestListener } from "node:http";
import request from "supertest";
import { afterAll, describe, expect, it } from "vitest";
import { loadContract, SEND_CONTRACT } from "../../src/contract/load.js";
import { operationChecks } from "../../src/contract/operation-checks.js";
import { createSendEdge } from "../../src/http/send-edge.js";
import { createSendRoute } from "../../src/http/send-route.js";
import { createSendWriter } from "../../src/http/send-writer.js";
import { createErrorTranslator } from "../../src/http/unexpected.js";
import { createSendMock } from "../../src/mock.js";
import { createMemorySettingsStore } from "../../src/stores/memory/settings.js";

const checks = operationChecks(await loadContract(SEND_CONTRACT), "/send", "post");
const mock = await createSendMock();
afterAll(() => mock.close());

/** A /send whose pipeline responds with `response` with `status`, through sendmock's one writer; `bugs` collects what it reports. */
function appResponding(status: number, response: unknown, bugs: unknown[] = []): RequestListener {
  const translate = createErrorTranslator((error) => bugs.push(error));
  const route = createSendRoute({
    edge: createSendEdge({ watchClient: false, sandboxPaths: false, bodyLimitBytes: 1024, corsOrigins: [] }),
    pipeline: () => Promise.resolve({ kind: "response", response: { status, headers: {}, body: { json: response } }, judge: "enforce", notes: {} }),
    writer: createSendWriter({
      checks,
      responseChecker: () => Promise.reject(new Error("no respond fault here")),
      idempotency: { keep: () => Promise.resolve(), release: () => Promise.resolve() },
      journal: { record: () => Promise.resolve() },
      journalBodyBytes: 1024,
      settings: createMemorySettingsStore({ responseShape: "a", strictData: false, rateLimit: null }),
      statusCodes: {},
      toApiError: translate,
      shutdown: new AbortController().signal,
    }),
    reportUnexpected: (error) => bugs.push(error),
  });
  return (req, res) => route.handle(req, res);
}

const A_SEND = { to: "ada@example.com", template_id: "welcome", data: { name: "Ada" } };
const aJsonRequest = (body: unknown, headers: Record<string, string> = {}) => ({ query: {}, params: {}, headers, contentType: "application/json", body });

/** The error of a shape-a response. */
const errorOf = (response: request.Response) => (response.body as { error: { code: string; message: string } }).error;

describe("the answer check of POST /send", () => {
  it("lets an answer that fits the contract through untouched", async () => {
    const success = { success: true, message_id: "msg_1", status: "queued" };
    const response = await request(appResponding(200, success)).post("/send").send(A_SEND);
    expect(response.status).toBe(200);
    expect(response.body).toEqual(success);
  });

  it("answers a server_error naming the violation instead of an answer that breaks the contract, and logs the bug", async () => {
    const bugs: unknown[] = [];
    const response = await request(appResponding(200, { success: true, status: "queued" }, bugs))
      .post("/send")
      .send(A_SEND);
    expect(response.status).toBe(500);
    expect(errorOf(response).code).toBe("server_error");
    expect(errorOf(response).message).toMatch(/^sendmock broke its own contract \(a bug in sendmock\): .*\/response\/message_id/);
    expect(bugs).toEqual([expect.objectContaining({ kind: "broken_response" })]);
  });

  it("judges an error answer by the schema of its status (4XX here)", async () => {
    const response = await request(appResponding(418, { oops: true }))
      .post("/send")
      .send(A_SEND);
    expect(response.status).toBe(500);
    expect(errorOf(response).message).toMatch(/sendmock broke its own contract/);
  });

  it("refuses a status the contract does not list", () => {
    expect(checks.response(302, {})).toEqual([{ path: "/response", keyword: "", message: "no schema defined for status code '302' in the openapi spec" }]);
  });
});

describe("the request check of POST /send", () => {
  it("names each problem of the body by its pointer, ajv keyword and words", () => {
    const issues = checks.request(aJsonRequest({ ...A_SEND, to: "a@b", extra: 1, data: { name: 5 } }))?.issues;
    expect(issues).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          path: "/body/extra",
          keyword: "additionalProperties",
          message: "must NOT have additional properties",
          // The keys the body takes, for the words to name the one a misspelt key was meant to be.
          known: ["to", "template_id", "data", "cc", "bcc", "reply_to", "subject"],
        }),
        expect.objectContaining({ path: "/body/to", keyword: "format", message: 'must match format "email"', format: "email" }),
        expect.objectContaining({ path: "/body/data/name", keyword: "type" }),
      ]),
    );
  });

  it("refuses a query parameter the contract does not document", async () => {
    const response = await request(mock.app).post("/send?page=2").set("Authorization", "Bearer key-1").send(A_SEND);
    expect(response.status).toBe(400);
    expect(errorOf(response).message).toBe("Invalid request: query.page Unknown query parameter 'page'");
  });

  it("checks a documented header by its schema (Idempotency-Key: 1 to 255 visible characters)", () => {
    expect(checks.request(aJsonRequest(A_SEND, { "idempotency-key": "order-1042" }))).toBeUndefined();
    expect(checks.request(aJsonRequest(A_SEND, { "idempotency-key": "x".repeat(256) }))?.issues).toEqual([
      expect.objectContaining({ path: "/headers/Idempotency-Key", keyword: "maxLength", message: "must NOT have more than 255 characters", limit: 255 }),
    ]);
  });

  it("finds nothing wrong with a body that fits", () => {
    expect(checks.request(aJsonRequest(A_SEND))).toBeUndefined();
  });
});
