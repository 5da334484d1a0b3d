// GET and PATCH /_mock/config, POST /_mock/reset, and many mocks in one process keeping their state apart.

import request from "supertest";
import { describe, expect, it } from "vitest";
import type { ConfigView } from "../../src/index.js";
import { checked, expectAdminError, getConfig, listMessages, listRequests, patchConfig, send, sendOk } from "../support/admin-calls.js";
import { aMockForThisTest as aTrackedMock, aSendRequest, SHIPPED_TEMPLATES, sharedMock } from "../support/helpers.js";

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
      allow_open_admin: false,
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
