// The rate limiter as a client sees it: RateLimit-* headers, 429 with Retry-After, changes at run time.

import request, { type Response } from "supertest";
import { afterEach, describe, expect, it } from "vitest";
import type { SendMock, SendMockOptions } from "../../src/index.js";
import { aMock, aSendRequest, bearer, expectContract } from "../support/helpers.js";

const mocks: SendMock[] = [];

afterEach(async () => {
  await Promise.all(mocks.splice(0).map((mock) => mock.close()));
});

async function aLimitedMock(options: SendMockOptions = {}): Promise<SendMock> {
  const mock = await aMock({ rateLimit: { requests: 2, perSeconds: 60 }, ...options });
  mocks.push(mock);
  return mock;
}

async function send(mock: SendMock, key = "key-aaaa-1111", body: object = aSendRequest()): Promise<Response> {
  const response = await request(mock.app).post("/send").set(bearer(key)).send(body);
  await expectContract(response);
  return response;
}

function rateLimitHeaders(response: Response) {
  return {
    limit: response.headers["ratelimit-limit"],
    remaining: response.headers["ratelimit-remaining"],
    reset: response.headers["ratelimit-reset"],
  };
}

describe("with rate_limit set", () => {
  it("counts down RateLimit-Remaining on every answer, then refuses with 429 and Retry-After", async () => {
    const mock = await aLimitedMock();
    const responses = [await send(mock), await send(mock), await send(mock)];
    expect(responses.map((response) => response.status)).toEqual([200, 200, 429]);
    expect(responses.map(rateLimitHeaders)).toEqual([
      { limit: "2", remaining: "1", reset: "30" },
      { limit: "2", remaining: "0", reset: "30" },
      { limit: "2", remaining: "0", reset: "30" },
    ]);
    const refused = responses[2];
    expect(refused?.headers["retry-after"]).toBe("30");
    expect(refused?.headers["x-sendmock-error-code"]).toBe("rate_limited");
    expect(refused?.body).toEqual({
      success: false,
      error: { code: "rate_limited", message: "Rate limit exceeded: 2 requests per 60 s for this API key; retry after 30 s" },
    });
  });

  it("answers 429 in shape b too", async () => {
    const mock = await aLimitedMock({ responseShape: "b", rateLimit: { requests: 1, perSeconds: 1 } });
    await send(mock);
    const refused = await send(mock);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ status: "error", message: expect.stringContaining("Rate limit exceeded") as unknown });
    expect(refused.headers["retry-after"]).toBe("1");
  });

  it("puts the headers on errors after the limiter as well", async () => {
    const mock = await aLimitedMock();
    const rejected = await send(mock, "key-aaaa-1111", aSendRequest({ template_id: "no-such-template" }));
    expect(rejected.status).toBe(422);
    expect(rateLimitHeaders(rejected)).toEqual({ limit: "2", remaining: "1", reset: "30" });
  });

  it("keeps a bucket per API key", async () => {
    const mock = await aLimitedMock();
    await send(mock, "key-aaaa-1111");
    await send(mock, "key-aaaa-1111");
    expect((await send(mock, "key-aaaa-1111")).status).toBe(429);
    expect((await send(mock, "key-bbbb-2222")).status).toBe(200);
  });

  it("checks the key first: a request without one takes no token", async () => {
    const mock = await aLimitedMock();
    const anonymous = await request(mock.app).post("/send").send(aSendRequest());
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers["ratelimit-limit"]).toBeUndefined();
    expect(rateLimitHeaders(await send(mock))).toMatchObject({ remaining: "1" });
  });

  it("lets burst make the bucket larger than requests", async () => {
    const mock = await aLimitedMock({ rateLimit: { requests: 1, perSeconds: 60, burst: 3 } });
    const statuses = [];
    for (let i = 0; i < 4; i += 1) statuses.push((await send(mock)).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
  });

  it("records the refusals in the journal and captures only what was admitted", async () => {
    const mock = await aLimitedMock();
    for (let i = 0; i < 3; i += 1) await send(mock);
    expect((await mock.journal.list()).requests.map((entry) => entry.error_code)).toEqual(["rate_limited", null, null]);
    expect((await mock.outbox.list()).total).toBe(2);
  });
});

describe("max_rate_limit_buckets", () => {
  it("keeps that many API keys' buckets: past it, the key used longest ago starts afresh", async () => {
    const mock = await aLimitedMock({ rateLimit: { requests: 1, perSeconds: 60 }, maxRateLimitBuckets: 2 });
    expect((await send(mock, "key-a-0001")).status).toBe(200);
    expect((await send(mock, "key-a-0001")).status).toBe(429);

    expect((await send(mock, "key-b-0002")).status).toBe(200);
    expect((await send(mock, "key-c-0003")).status).toBe(200);

    expect((await send(mock, "key-a-0001")).status).toBe(200);
  });

  it("is at least 1", async () => {
    await expect(aMock({ maxRateLimitBuckets: 0 })).rejects.toThrow("options: maxRateLimitBuckets must be at least 1");
  });
});

describe("changing the limit at run time", () => {
  it("adds, changes and removes the limit with PATCH /_mock/config", async () => {
    const mock = await aLimitedMock({ rateLimit: null });
    expect((await send(mock)).headers["ratelimit-limit"]).toBeUndefined();

    const patched = await request(mock.app)
      .patch("/_mock/config")
      .send({ rate_limit: { requests: 1, per_seconds: 10 } });
    expect(patched.body).toMatchObject({ rate_limit: { requests: 1, per_seconds: 10, burst: 1 } });
    expect((await send(mock)).status).toBe(200);
    expect((await send(mock)).status).toBe(429);

    await request(mock.app).patch("/_mock/config").send({ rate_limit: null });
    const unlimited = await send(mock);
    expect(unlimited.status).toBe(200);
    expect(unlimited.headers["ratelimit-remaining"]).toBeUndefined();
  });

  it("refills every bucket on POST /_mock/reset", async () => {
    const mock = await aLimitedMock();
    for (let i = 0; i < 3; i += 1) await send(mock);
    expect((await request(mock.app).post("/_mock/reset")).status).toBe(204);
    expect(rateLimitHeaders(await send(mock))).toMatchObject({ remaining: "1" });
  });

  it("brings a PATCHed limit back to the start-up one on reset", async () => {
    const mock = await aLimitedMock();
    await request(mock.app).patch("/_mock/config").send({ rate_limit: null });
    await request(mock.app).post("/_mock/reset");
    expect(rateLimitHeaders(await send(mock))).toEqual({ limit: "2", remaining: "1", reset: "30" });
  });
});

describe("rate-limit numbers at the edges of their ranges", () => {
  it.each([
    { requests: 1, perSeconds: 0.001 },
    { requests: 1, perSeconds: 86_400 },
    { requests: 1_000_000, perSeconds: 0.001, burst: 1 },
    { requests: 1, perSeconds: 1, burst: 1_000_000 },
  ])("answer RateLimit-* and Retry-After headers the contract allows with %o", async (rateLimit) => {
    const mock = await aLimitedMock({ rateLimit });
    // expectContract checks the headers against their schemas in openapi/send.yaml.
    const responses = [await send(mock), await send(mock)];
    expect(responses.every((response) => /^\d+$/.test(String(response.headers["ratelimit-reset"])))).toBe(true);
  });

  it.each([
    ["per_seconds: 1e-320, which made the reset NaN", { requests: 1, per_seconds: 1e-320 }],
    ["per_seconds: 1e308, which made the reset 1e+308", { requests: 1, per_seconds: 1e308 }],
    ["burst: 1e21, which made the limit 1e+21", { requests: 1, per_seconds: 1, burst: 1e21 }],
  ])("PATCH /_mock/config refuses %s with 400 invalid_request", async (_case, rateLimit) => {
    const mock = await aLimitedMock();
    const response = await request(mock.app).patch("/_mock/config").send({ rate_limit: rateLimit });
    await expectContract(response, { contract: "admin", method: "patch", path: "/_mock/config" });
    expect(response.status).toBe(400);
    expect(response.headers["x-sendmock-error-code"]).toBe("invalid_request");
  });

  it("refuses the same numbers as library options, naming them", async () => {
    await expect(aMock({ rateLimit: { requests: 1, perSeconds: 1e-320 } })).rejects.toThrow("options: rateLimit.perSeconds must be at least 0.001");
  });
});
