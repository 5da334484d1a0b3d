// The library's settings handle (`mock.settings.update`) is checked as PATCH /_mock/config is, and refused in the same words.

import request from "supertest";
import { describe, expect, it } from "vitest";
import { ApiError, type SendMock } from "../../src/index.js";
import { aSendRequest, bearer, expectContract, sharedMock } from "../support/helpers.js";

type Change = Parameters<SendMock["settings"]["update"]>[0];

/** What `mock.settings.update(change)` refused with: its code and message. */
async function refusalOf(mock: SendMock, change: unknown): Promise<{ code: string; message: string }> {
  const refusal: unknown = await mock.settings.update(change as Change).then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(refusal).toBeInstanceOf(ApiError);
  const { code, message } = refusal as ApiError;
  return { code, message };
}

/** What PATCH /_mock/config responded to `patch`: its status and message. */
async function patchRefusalOf(mock: SendMock, patch: unknown): Promise<{ status: number; message: string }> {
  const response = await request(mock.app)
    .patch("/_mock/config")
    .send(patch as object);
  return { status: response.status, message: (response.body as { error: { message: string } }).error.message };
}

describe("mock.settings.update", () => {
  const theMock = sharedMock();

  it.each([
    [
      "a rate limit without perSeconds",
      { rateLimit: { requests: 2 } },
      { rate_limit: { requests: 2 } },
      "rateLimit.perSeconds is required",
      "rate_limit.per_seconds is required",
    ],
    [
      "perSeconds spelt the other way",
      { rateLimit: { requests: 2, per_seconds: 60 } },
      { rate_limit: { requests: 2, perSeconds: 60 } },
      "rateLimit.perSeconds is required; rateLimit.per_seconds is not a known field (did you mean perSeconds?)",
      "rate_limit.per_seconds is required; rate_limit.perSeconds is not a known field (did you mean per_seconds?)",
    ],
    [
      "no requests at all",
      { rateLimit: { requests: 0, perSeconds: 1 } },
      { rate_limit: { requests: 0, per_seconds: 1 } },
      "rateLimit.requests must be at least 1",
      "rate_limit.requests must be at least 1",
    ],
    ["a shape that does not exist", { responseShape: "c" }, { response_shape: "c" }, "responseShape must be a or b", "response_shape must be a or b"],
    ["strictData that is not true or false", { strictData: "yes" }, { strict_data: "yes" }, "strictData must be a boolean", "strict_data must be a boolean"],
  ])("refuses %s as PATCH /_mock/config does, in its words with the keys as written, and changes nothing", async (_label, change, patch, words, patchWords) => {
    const mock = theMock();
    const before = mock.settings.current();

    expect(await refusalOf(mock, change)).toEqual({ code: "invalid_request", message: `Invalid request: ${words}` });
    expect(await patchRefusalOf(mock, patch)).toEqual({ status: 400, message: `Invalid request: ${patchWords}` });
    expect(mock.settings.current()).toEqual(before);
  });

  it("keeps the rate limit whole after a refused change: 429s say when to retry and GET /_mock/config answers", async () => {
    const mock = theMock();
    await mock.settings.update({ rateLimit: { requests: 1, perSeconds: 60 } });
    await refusalOf(mock, { rateLimit: { requests: 2 } });

    const send = () => request(mock.app).post("/send").set(bearer()).send(aSendRequest());
    expect((await send()).status).toBe(200);
    const limited = await send();
    expect(limited.status).toBe(429);
    expect(limited.headers["retry-after"]).toBe("60");
    expect((limited.body as { error: { message: string } }).error.message).toMatch(/^Rate limit exceeded: 1 requests per 60 s/);

    const config = await request(mock.app).get("/_mock/config");
    expect(config.status).toBe(200);
    await expectContract(config, { contract: "admin", method: "get", path: "/_mock/config" });
    expect(config.body).toMatchObject({ rate_limit: { requests: 1, per_seconds: 60, burst: 1 } });
  });

  it("takes a change PATCH /_mock/config would take, and answers the settings in force", async () => {
    const mock = theMock();

    const settings = await mock.settings.update({ responseShape: "b", strictData: true, rateLimit: { requests: 5, perSeconds: 1, burst: 10 } });

    expect(settings).toEqual({ responseShape: "b", strictData: true, rateLimit: { requests: 5, perSeconds: 1, burst: 10 } });
    expect(await mock.settings.update({ rateLimit: null })).toMatchObject({ rateLimit: null });
  });
});
