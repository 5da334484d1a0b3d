// `sendmock proxy` in front of a stand-in for the real service written from its spec alone
// (test/support/spec-service.ts): under the published contract, the default, its own codes,
// statuses and extra members pass; under --contract sendmock they are flagged.

import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSendMock, type SendMock } from "../../src/index.js";
import { bearer } from "../support/helpers.js";
import { startSpecService, type SpecService } from "../support/spec-service.js";

let service: SpecService;
const proxies: SendMock[] = [];

beforeAll(async () => {
  service = await startSpecService("conforming");
});

afterAll(async () => {
  await Promise.all(proxies.map((mock) => mock.close()));
  await service.close();
});

async function aProxy(contract?: string): Promise<SendMock> {
  const mock = await createSendMock({ watchTemplates: false, proxy: { target: service.url, ...(contract === undefined ? {} : { contract }) } });
  proxies.push(mock);
  return mock;
}

const valid = { to: "ada@example.com", template_id: "welcome", data: { name: "Ada" } };

/** Each request a client may send, the status the stand-in responds to it with, and where the request itself breaks the published contract. */
const REQUESTS: [string, unknown, number, string[]][] = [
  ["a valid send", valid, 200, []],
  ["a send with a member the spec does not name", { ...valid, tracking: "x1" }, 200, []],
  ["an invalid recipient", { ...valid, to: "not-an-address" }, 422, ["/to"]],
  ["an unknown template", { ...valid, template_id: "nope" }, 404, []],
];

async function sendThrough(mock: SendMock, body: unknown) {
  return request(mock.app).post("/send").set(bearer("live-key-7f3a")).set("Content-Type", "application/json").send(JSON.stringify(body));
}

async function journalViolations(mock: SendMock): Promise<{ path: string }[]> {
  const response = await request(mock.app).get("/_mock/requests?limit=1").expect(200);
  return (response.body as { requests: { violations: { path: string }[] }[] }).requests[0]?.violations ?? [];
}

describe("sendmock proxy judges a real service by the contract --contract names", () => {
  for (const [what, body, status, requestViolations] of REQUESTS) {
    it(`under the published contract (the default), passes on ${what}, its ${status} answer without a violation`, async () => {
      const mock = await aProxy();
      const response = await sendThrough(mock, body);
      expect(response.status).toBe(status);
      expect(response.body).toHaveProperty("request_id");
      expect((await journalViolations(mock)).map((violation) => violation.path)).toEqual(requestViolations);
      if (requestViolations.length === 0) expect(response.headers["x-sendmock-violations"]).toBeUndefined();
    });
  }

  it("under --contract sendmock, flags the same answers' extra member and the request's unknown field", async () => {
    const mock = await aProxy("sendmock");
    const response = await sendThrough(mock, { ...valid, tracking: "x1" });
    expect(response.status).toBe(200);
    expect(response.headers["x-sendmock-violations"]).toContain("/response/body/request_id request_id is not in the contract");
    const paths = (await journalViolations(mock)).map((violation) => violation.path);
    expect(paths).toEqual(expect.arrayContaining(["/tracking", "/response/body/request_id"]));
  });
});
