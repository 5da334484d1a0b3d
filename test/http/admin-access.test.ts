// Health, the served send contract, admin_token on every inspection call, and unknown calls under /_mock.

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import request from "supertest";
import { describe, expect, it } from "vitest";
import type { ConfigView, SendMock } from "../../src/index.js";
import { checked, expectAdminError, send, sendOk } from "../support/admin-calls.js";
import { aMockForThisTest as aTrackedMock, bearer, sharedMock } from "../support/helpers.js";

const SEND_CONTRACT_FILE = fileURLToPath(new URL("../../openapi/send.yaml", import.meta.url));
const ADMIN_TOKEN = "admin-secret-1";

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
