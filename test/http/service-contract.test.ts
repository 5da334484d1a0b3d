// sendmock's own responses to POST /send keep openapi/service.yaml, the contract the real
// service's spec publishes: each response kind (success, replay, every error code sendmock gives on
// /send), in both shapes, judged by the checker `check` and `proxy` use by default.

import request from "supertest";
import { describe, expect, it } from "vitest";
import { ERROR_CODES, type SendMock } from "../../src/index.js";
import { chooseContract } from "../../src/contract/choice.js";
import { aMockForThisTest, aSendRequest, bearer } from "../support/helpers.js";

const KEY = "good-key-1234";

interface ServiceResponse {
  kind: string;
  status: number;
  headers: Record<string, string>;
  body: string;
}

type Send = (kind: string, build: (test: request.Agent) => request.Test) => Promise<void>;

/** Every response kind of POST /send, from one mock with keys and a small body limit and one with strict data and a rate limit. */
async function responsesInShape(shape: "a" | "b"): Promise<ServiceResponse[]> {
  const responses: ServiceResponse[] = [];
  const sender =
    (mock: SendMock): Send =>
    async (kind, build) => {
      const response = await build(request.agent(mock.app));
      responses.push({ kind, status: response.status, headers: response.headers, body: response.text });
    };
  const keyed = sender(await aMockForThisTest({ responseShape: shape, apiKeys: [KEY], bodyLimit: "2kb" }));
  const post = (test: request.Agent, key = KEY) => test.post("/send").set(bearer(key)).set("Content-Type", "application/json");
  const json = (body: unknown) => JSON.stringify(body);

  await keyed("accepted", (test) => post(test).send(json(aSendRequest())));
  await keyed("accepted with a warning", (test) => post(test).send(json(aSendRequest({ data: { ...aSendRequest().data, extra: "x" } }))));
  await keyed("first with a key", (test) => post(test).set("Idempotency-Key", "k-1").send(json(aSendRequest())));
  await keyed("replayed", (test) => post(test).set("Idempotency-Key", "k-1").send(json(aSendRequest())));
  await keyed("idempotency_key_reused", (test) =>
    post(test)
      .set("Idempotency-Key", "k-1")
      .send(json(aSendRequest({ to: "bob@example.com" }))),
  );
  await keyed("invalid_idempotency_key", (test) => post(test).set("Idempotency-Key", "é").send(json(aSendRequest())));
  await keyed("missing_api_key", (test) => test.post("/send").set("Content-Type", "application/json").send(json(aSendRequest())));
  await keyed("invalid_api_key", (test) => post(test, "other-key-9999").send(json(aSendRequest())));
  await keyed("unsupported_media_type", (test) => post(test).set("Content-Type", "text/plain").send(json(aSendRequest())));
  await keyed("invalid_json", (test) => post(test).send("{bad"));
  await keyed("payload_too_large", (test) => post(test).send(json(aSendRequest({ subject: "x".repeat(900), data: { name: "y".repeat(2000) } }))));
  await keyed("missing_required_field", (test) => post(test).send(json({ to: "ada@example.com", data: {} })));
  await keyed("invalid_request", (test) => post(test).send(json({ ...aSendRequest(), zzz: 1 })));
  await keyed("invalid_recipient", (test) => post(test).send(json(aSendRequest({ to: "not-an-address" }))));
  await keyed("invalid_template_id", (test) => post(test).send(json(aSendRequest({ template_id: "nope" }))));
  await keyed("missing_template_data", (test) => post(test).send(json(aSendRequest({ data: {} }))));
  await keyed("method_not_allowed", (test) => test.get("/send").set(bearer(KEY)));
  for (const status of ["500", "502", "503", "504"]) {
    await keyed(`server_error ${status}`, (test) =>
      post(test).set("X-Sendmock-Fault", "server_error").set("X-Sendmock-Fault-Status", status).send(json(aSendRequest())),
    );
  }
  await keyed("rate_limited by a fault", (test) => post(test).set("X-Sendmock-Fault", "rate_limit").send(json(aSendRequest())));
  // The second request with a key arrives while the first is held by a latency fault.
  const held = keyed("held", (test) =>
    post(test).set("Idempotency-Key", "k-2").set("X-Sendmock-Fault", "latency").set("X-Sendmock-Fault-Delay", "300").send(json(aSendRequest())),
  );
  await keyed("idempotency_key_in_flight", (test) => post(test).set("Idempotency-Key", "k-2").send(json(aSendRequest())));
  await held;

  const strict = sender(await aMockForThisTest({ responseShape: shape, strictData: true, rateLimit: { requests: 1, perSeconds: 3600 } }));
  await strict("accepted under a rate limit", (test) => post(test).send(json(aSendRequest())));
  await strict("rate_limited", (test) => post(test).send(json(aSendRequest())));
  await strict("unknown_template_data", (test) =>
    post(test)
      .set(bearer("another-key-5678"))
      .send(json(aSendRequest({ data: { ...aSendRequest().data, extra: "x" } }))),
  );
  return responses;
}

describe("sendmock's own answers keep the published contract (openapi/service.yaml)", () => {
  for (const shape of ["a", "b"] as const) {
    it(`every answer kind in shape ${shape} passes it`, async () => {
      const { checker } = await chooseContract("published");
      const responses = await responsesInShape(shape);
      const broken = responses
        .map((response) => ({ kind: response.kind, status: response.status, violations: checker.checkResponse(response) }))
        .filter((response) => response.violations.length > 0);
      expect(broken).toEqual([]);
      // Every code sendmock responds to POST /send with was among them: a code added later must be added here.
      const codes = new Set(responses.map((response) => response.headers["x-sendmock-error-code"]).filter((code) => code !== undefined));
      expect([...codes].sort()).toEqual(ERROR_CODES.filter((code) => code !== "not_found" && code !== "contract_violation").sort());
      expect(responses.find((response) => response.kind === "replayed")?.headers["idempotency-replayed"]).toBe("true");
    });
  }
});
