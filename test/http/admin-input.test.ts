// What the inspection API makes of its input: PATCH /_mock/config errors in words, its own contract
// at GET /_mock/openapi.yaml, and JSON bodies that curl sent without saying they are JSON.

import { readFileSync } from "node:fs";
import http from "node:http";
import { fileURLToPath } from "node:url";
import request from "supertest";
import { describe, expect, it } from "vitest";
import type { ConfigView, RunningSendMock } from "../../src/index.js";
import { aRunningMock, aSendRequest, bearer, expectContract, sharedMock, sharedMockBuiltBy } from "../support/helpers.js";

const ADMIN_CONTRACT_FILE = fileURLToPath(new URL("../../openapi/admin.yaml", import.meta.url));
const ADMIN_TOKEN = "admin-secret-1";

interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  body: unknown;
}

/** A request with exactly these headers: supertest and fetch add a Content-Type of their own to a string body. */
function rawCall(mock: RunningSendMock, method: string, path: string, headers: Record<string, string>, body = ""): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const outgoing = http.request(`${mock.url}${path}`, { method, headers: { ...headers, "Content-Length": String(Buffer.byteLength(body)) } }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        const isJson = (response.headers["content-type"] ?? "").startsWith("application/json");
        resolve({ status: response.statusCode ?? 0, headers: response.headers, text, body: isJson ? (JSON.parse(text) as unknown) : undefined });
      });
    });
    outgoing.on("error", reject);
    outgoing.end(body);
  });
}

function errorOf(response: { body: unknown }): { code?: string; message?: string } {
  return (response.body as { error?: { code?: string; message?: string } }).error ?? {};
}

describe("PATCH /_mock/config names the cause of a refusal in words, not the oneOf behind rate_limit", () => {
  const shared = sharedMock();

  it.each([
    ["a rate limit without per_seconds", { rate_limit: { requests: 2 } }, "rate_limit.per_seconds is required"],
    [
      "a rate limit with a misspelt key",
      { rate_limit: { requests: 2, per_second: 1 } },
      "rate_limit.per_seconds is required; rate_limit.per_second is not a known field (did you mean per_seconds?)",
    ],
    ["a rate limit of zero requests", { rate_limit: { requests: 0, per_seconds: 1 } }, "rate_limit.requests must be at least 1"],
    ["a rate limit of zero per second", { rate_limit: { requests: 5, per_seconds: 0 } }, "rate_limit.per_seconds must be at least 0.001"],
    ["a refill period over a day", { rate_limit: { requests: 5, per_seconds: 86_401 } }, "rate_limit.per_seconds must be at most 86400"],
    ["a burst of zero", { rate_limit: { requests: 5, per_seconds: 1, burst: 0 } }, "rate_limit.burst must be at least 1"],
    ["a fractional number of requests", { rate_limit: { requests: 1.5, per_seconds: 1 } }, "rate_limit.requests must be a whole number"],
    ["a rate limit given as text", { rate_limit: "5/s" }, "rate_limit must be an object or null"],
    ["an unknown response shape", { response_shape: "c" }, "response_shape must be a or b"],
    ["strict_data given as text", { strict_data: "yes" }, "strict_data must be a boolean"],
    ["a key that cannot change at run time", { capacity: 5 }, "capacity is not a known field"],
  ])("%s", async (_case, patch, expected) => {
    const mock = shared();

    const response = await request(mock.app).patch("/_mock/config").send(patch);

    await expectContract(response, { contract: "admin", method: "patch", path: "/_mock/config" });
    expect(response.status).toBe(400);
    expect(errorOf(response)).toEqual({ code: "invalid_request", message: `Invalid request: ${expected}` });
  });
});

describe("GET /_mock/openapi.yaml", () => {
  const shared = sharedMock();

  it("serves openapi/admin.yaml as application/yaml, for generating a client of the inspection API", async () => {
    const response = await request(shared().app).get("/_mock/openapi.yaml").buffer(true);

    await expectContract(
      { status: response.status, headers: response.headers, body: response.text },
      { contract: "admin", method: "get", path: "/_mock/openapi.yaml" },
    );
    expect(response.status).toBe(200);
    expect(response.headers["content-type"]).toMatch(/^application\/yaml/);
    expect(response.text).toBe(readFileSync(ADMIN_CONTRACT_FILE, "utf8"));
  });

  describe("with admin_token, like every /_mock call", () => {
    const guarded = sharedMock({ adminToken: ADMIN_TOKEN });

    it("answers 401 missing_api_key without the token", async () => {
      const response = await request(guarded().app).get("/_mock/openapi.yaml");

      await expectContract(response, { contract: "admin", method: "get", path: "/_mock/openapi.yaml" });
      expect(response.status).toBe(401);
      expect(errorOf(response).code).toBe("missing_api_key");
    });

    it("serves the document with the token, while GET /openapi.yaml stays public", async () => {
      const withToken = await request(guarded().app).get("/_mock/openapi.yaml").set(bearer(ADMIN_TOKEN)).buffer(true);
      const sendContract = await request(guarded().app).get("/openapi.yaml").buffer(true);

      expect(withToken.status).toBe(200);
      expect(withToken.text).toBe(readFileSync(ADMIN_CONTRACT_FILE, "utf8"));
      expect(sendContract.status).toBe(200);
    });
  });
});

describe("admin bodies sent without saying they are JSON (curl -d)", () => {
  const shared = sharedMockBuiltBy(() => aRunningMock());
  const json = JSON.stringify({ strict_data: true });

  it("reads a body with no Content-Type as JSON", async () => {
    const mock = shared();

    const response = await rawCall(mock, "PATCH", "/_mock/config", {}, json);

    expect(response.status).toBe(200);
    expect((response.body as ConfigView).strict_data).toBe(true);
  });

  it("reads a body with curl's default form type as JSON when it is JSON", async () => {
    const mock = shared();

    const patched = await rawCall(mock, "PATCH", "/_mock/config", { "Content-Type": "application/x-www-form-urlencoded" }, json);
    const added = await rawCall(
      mock,
      "POST",
      "/_mock/faults",
      { "Content-Type": "application/x-www-form-urlencoded" },
      '{"fault": "server_error", "times": 1}',
    );

    expect(patched.status).toBe(200);
    expect((patched.body as ConfigView).strict_data).toBe(true);
    expect(added.status).toBe(201);
    expect(await mock.faults.list()).toMatchObject([{ fault: "server_error", times: 1 }]);
  });

  it("still answers 415 unsupported_media_type to a real form", async () => {
    const mock = shared();

    const response = await rawCall(mock, "PATCH", "/_mock/config", { "Content-Type": "application/x-www-form-urlencoded" }, "strict_data=true");

    expect(response.status).toBe(415);
    expect(errorOf(response).code).toBe("unsupported_media_type");
    expect((await request(mock.app).get("/_mock/config")).body).toMatchObject({ strict_data: false });
  });

  it("answers 400 invalid_json to a body with no Content-Type that is not JSON", async () => {
    const mock = shared();

    const response = await rawCall(mock, "PATCH", "/_mock/config", {}, "strict_data: true");

    expect(response.status).toBe(400);
    expect(errorOf(response).code).toBe("invalid_json");
  });

  it.each([
    ["no Content-Type", {}],
    ["curl's default form type", { "Content-Type": "application/x-www-form-urlencoded" }],
  ])("keeps POST /send strict: a JSON body with %s is 415 unsupported_media_type", async (_case, headers: Record<string, string>) => {
    const mock = shared();

    const response = await rawCall(mock, "POST", "/send", { ...headers, ...bearer() }, JSON.stringify(aSendRequest()));

    expect(response.status).toBe(415);
    expect(errorOf(response).code).toBe("unsupported_media_type");
    expect((await mock.outbox.list()).total).toBe(0);
  });
});
