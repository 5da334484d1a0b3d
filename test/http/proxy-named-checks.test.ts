// `sendmock proxy` names the checks `sendmock check` judges by (issue 46, item 1): a 5xx is `not_a_server_error`, a request the
// contract forbids that the service did not refuse is `negative_data_rejection`, in X-Sendmock-Violations and the journal; a
// conforming service refusing the same request is told apart. The services are stand-ins written from the spec (spec-service.ts).

import request from "supertest";
import { afterAll, describe, expect, it } from "vitest";
import { createSendMock, type SendMock } from "../../src/index.js";
import { bearer } from "../support/helpers.js";
import { startSpecService, type SpecService, type SpecServiceVariant } from "../support/spec-service.js";

const opened: { close(): Promise<void> }[] = [];
afterAll(async () => {
  await Promise.all(opened.map((each) => each.close()));
});

async function aProxyIn(front: SpecServiceVariant): Promise<SendMock> {
  const service: SpecService = await startSpecService(front);
  const mock = await createSendMock({ watchTemplates: false, proxy: { target: service.url } });
  opened.push(service, mock);
  return mock;
}

async function relay(mock: SendMock, body: unknown) {
  const response = await request(mock.app).post("/send").set(bearer("live-key-7f3a")).set("Content-Type", "application/json").send(JSON.stringify(body));
  const journal = await request(mock.app).get("/_mock/requests?limit=1").expect(200);
  const [entry] = (journal.body as { requests: { violations: { path: string; message: string }[] }[] }).requests;
  return { status: response.status, header: response.headers["x-sendmock-violations"], violations: entry?.violations ?? [] };
}

const valid = { to: "ada@example.com", template_id: "welcome", data: { name: "Ada" } };
const noData = { to: "ada@example.com", template_id: "welcome" };

describe("proxy's named checks", () => {
  it("flags a 5xx as not_a_server_error: the service that fails on a non-ASCII value", async () => {
    const mock = await aProxyIn("server-error-on-non-ascii-data");
    const relayed = await relay(mock, { ...valid, data: { name: "Zoë" } });
    expect(relayed.status).toBe(500);
    const named = "not_a_server_error: a server error (expected no 5xx, got 500)";
    expect(relayed.header).toContain(`/response/status ${named}`);
    expect(relayed.violations).toContainEqual({ path: "/response/status", message: named });
  });

  it("flags a request the contract forbids that the service accepted as negative_data_rejection: the service whose data is optional", async () => {
    const mock = await aProxyIn("data-optional");
    const relayed = await relay(mock, noData);
    expect(relayed.status).toBe(200);
    expect(relayed.header).toMatch(
      /\/response\/status negative_data_rejection: a request the contract forbids \(\/data .+\) was not refused \(expected 4xx, got 200\)/,
    );
    expect(relayed.violations.map((violation) => violation.message)).toContainEqual(expect.stringMatching(/^negative_data_rejection: /));
  });

  it("tells a conforming service apart: its 422 to the same request is the request's violation, and no named check", async () => {
    const mock = await aProxyIn("conforming");
    const refused = await relay(mock, noData);
    expect(refused.status).toBe(422);
    expect(refused.violations.map((violation) => violation.path)).toContain("/data");
    expect(refused.violations.filter((violation) => /^(not_a_server_error|negative_data_rejection): /.test(violation.message))).toEqual([]);
    const sent = await relay(mock, valid);
    expect(sent).toMatchObject({ status: 200, violations: [] });
    expect(sent.header).toBeUndefined();
  });
});
