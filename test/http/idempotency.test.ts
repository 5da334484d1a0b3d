// Idempotency-Key on POST /send: a retried send gets a response again, not sent again.

import request from "supertest";
import { parseList } from "structured-headers";
import got from "got";
import { describe, expect, it } from "vitest";
import { aMockForThisTest, aRunningMockForThisTest, aSendRequest, bearer, errorCodeOf, expectContract, sharedMock } from "../support/helpers.js";
import type { FaultRuleInput, SendMock } from "../../src/index.js";

function messageIdOf(response: { body: unknown }): string | undefined {
  return (response.body as { message_id?: string }).message_id;
}

function send(mock: SendMock, body: object, headers: Record<string, string> = {}) {
  return request(mock.app).post("/send").set(bearer()).set(headers).send(body);
}

describe("Idempotency-Key", () => {
  const mock = sharedMock();

  it("answers a repeated send with the kept answer, marked as a replay, and captures nothing more", async () => {
    const first = await send(mock(), aSendRequest(), { "Idempotency-Key": "order-1042" });
    const again = await send(mock(), aSendRequest(), { "Idempotency-Key": "order-1042" });

    expect(first.status).toBe(200);
    expect(first.headers["idempotency-replayed"]).toBeUndefined();
    expect(again.status).toBe(200);
    expect(again.text).toBe(first.text);
    expect(again.headers["idempotency-replayed"]).toBe("true");
    await expectContract(again);
    expect((await mock().outbox.list()).messages).toHaveLength(1);
    const [replayEntry, firstEntry] = (await mock().journal.list()).requests;
    expect(replayEntry).toMatchObject({ idempotent_replay: true, message_id: messageIdOf(first) });
    expect(firstEntry).toMatchObject({ idempotent_replay: false, message_id: messageIdOf(first) });
  });

  it("takes the same JSON with its keys in another order as the same body", async () => {
    const body = aSendRequest();
    await send(mock(), body, { "Idempotency-Key": "k1" });
    const reordered = { data: body.data, template_id: body.template_id, to: body.to };
    const again = await send(mock(), reordered, { "Idempotency-Key": "k1" });
    expect(again.headers["idempotency-replayed"]).toBe("true");
    expect((await mock().outbox.list()).messages).toHaveLength(1);
  });

  it("refuses the same key with another body: 422 idempotency_key_reused", async () => {
    await send(mock(), aSendRequest(), { "Idempotency-Key": "k2" });
    const other = await send(mock(), aSendRequest({ to: "grace@example.com" }), { "Idempotency-Key": "k2" });
    expect(other.status).toBe(422);
    expect(errorCodeOf(other)).toBe("idempotency_key_reused");
    await expectContract(other);
  });

  it("journals the refusal, and GET /_mock/requests lists it in the contract (its code is in admin.yaml's catalogue)", async () => {
    await send(mock(), aSendRequest(), { "Idempotency-Key": "k2-journal" });
    await send(mock(), aSendRequest({ to: "grace@example.com" }), { "Idempotency-Key": "k2-journal" });
    const listed = await request(mock().app).get("/_mock/requests?limit=1");
    expect(listed.status).toBe(200);
    expect((listed.body as { requests: { error_code: string }[] }).requests[0]?.error_code).toBe("idempotency_key_reused");
  });

  it("keeps keys per API key: another key's same Idempotency-Key is a new send", async () => {
    await send(mock(), aSendRequest(), { "Idempotency-Key": "k3" });
    const otherKey = await request(mock().app).post("/send").set(bearer("another-key-9999")).set("Idempotency-Key", "k3").send(aSendRequest());
    expect(otherKey.headers["idempotency-replayed"]).toBeUndefined();
    expect((await mock().outbox.list()).messages).toHaveLength(2);
  });

  it.each([
    ["empty", ""],
    ["with a space", "order 1042"],
    ["too long", "k".repeat(256)],
    ["not ASCII", "commande-é"],
  ])("refuses a key that is %s: 400 invalid_idempotency_key", async (_name, key) => {
    const response = await send(mock(), aSendRequest(), { "Idempotency-Key": key });
    expect(response.status).toBe(400);
    expect(errorCodeOf(response)).toBe("invalid_idempotency_key");
    await expectContract(response);
  });

  it("quotes a key sent as UTF-8 as it was written", async () => {
    // Sent with a body, Node's client writes the header in the body's UTF-8, as curl sends what is typed.
    const response = await send(mock(), aSendRequest(), { "Idempotency-Key": "commande-é" });
    expect(response.status).toBe(400);
    expect((response.body as { error: { message: string } }).error.message).toBe(
      'Invalid Idempotency-Key: it must be 1 to 255 visible ASCII characters, got "commande-é" (10 characters)',
    );
  });

  it("accepts a key of 255 visible characters", async () => {
    const response = await send(mock(), aSendRequest(), { "Idempotency-Key": "k".repeat(255) });
    expect(response.status).toBe(200);
  });

  it("keeps a 4xx answer: the same request gets the same refusal again", async () => {
    const first = await send(mock(), aSendRequest({ template_id: "no-such-template" }), { "Idempotency-Key": "k4" });
    const again = await send(mock(), aSendRequest({ template_id: "no-such-template" }), { "Idempotency-Key": "k4" });
    expect(first.status).toBe(422);
    expect(again.status).toBe(422);
    expect(again.headers["idempotency-replayed"]).toBe("true");
    expect(again.headers["x-sendmock-error-code"]).toBe("invalid_template_id");
  });

  it("does not keep a 5xx: the retry is processed and sent", async () => {
    const failed = await send(mock(), aSendRequest(), { "Idempotency-Key": "k5", "X-Sendmock-Fault": "server_error", "X-Sendmock-Fault-Status": "503" });
    const retried = await send(mock(), aSendRequest(), { "Idempotency-Key": "k5" });
    expect(failed.status).toBe(503);
    expect(retried.status).toBe(200);
    expect(retried.headers["idempotency-replayed"]).toBeUndefined();
    expect((await mock().outbox.list()).messages).toHaveLength(1);
  });

  it("does not keep a 429: the retry is processed and sent", async () => {
    await send(mock(), aSendRequest(), { "Idempotency-Key": "k6", "X-Sendmock-Fault": "rate_limit" });
    const retried = await send(mock(), aSendRequest(), { "Idempotency-Key": "k6" });
    expect(retried.status).toBe(200);
    expect(retried.headers["idempotency-replayed"]).toBeUndefined();
  });

  it("answers 409 idempotency_key_in_flight while the first request is still being answered", async () => {
    const slow = send(mock(), aSendRequest(), { "Idempotency-Key": "k7", "X-Sendmock-Fault": "latency", "X-Sendmock-Fault-Delay": "300" }).then(
      (response) => response,
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    const meanwhile = await send(mock(), aSendRequest(), { "Idempotency-Key": "k7" });
    expect(meanwhile.status).toBe(409);
    expect(errorCodeOf(meanwhile)).toBe("idempotency_key_in_flight");
    await expectContract(meanwhile);
    expect((await slow).status).toBe(200);
    expect((await mock().outbox.list()).messages).toHaveLength(1);
  });

  it("forgets a key after idempotency_ttl_s of the mock's clock", async () => {
    const own = await aMockForThisTest({ idempotencyTtlS: 60 });
    await send(own, aSendRequest(), { "Idempotency-Key": "k8" });
    await own.clock.advance(59_000);
    expect((await send(own, aSendRequest(), { "Idempotency-Key": "k8" })).headers["idempotency-replayed"]).toBe("true");
    await own.clock.advance(2_000);
    const afterTtl = await send(own, aSendRequest(), { "Idempotency-Key": "k8" });
    expect(afterTtl.headers["idempotency-replayed"]).toBeUndefined();
    expect((await own.outbox.list()).messages).toHaveLength(2);
  });

  it("keeps at most max_idempotency_keys, forgetting the oldest", async () => {
    const own = await aMockForThisTest({ maxIdempotencyKeys: 2 });
    for (const key of ["a", "b", "c"]) await send(own, aSendRequest(), { "Idempotency-Key": key });
    expect((await send(own, aSendRequest(), { "Idempotency-Key": "c" })).headers["idempotency-replayed"]).toBe("true");
    expect((await send(own, aSendRequest(), { "Idempotency-Key": "a" })).headers["idempotency-replayed"]).toBeUndefined();
  });

  it("forgets every key on reset", async () => {
    await send(mock(), aSendRequest(), { "Idempotency-Key": "k9" });
    await mock().reset();
    expect((await send(mock(), aSendRequest(), { "Idempotency-Key": "k9" })).headers["idempotency-replayed"]).toBeUndefined();
  });
});

describe("the lost_answer fault", () => {
  const mock = sharedMock();

  it.each([
    ["a header", { "X-Sendmock-Fault": "lost_answer" }, aSendRequest()],
    ["a magic recipient", {}, aSendRequest({ to: "lost_answer@fault.sendmock.test" })],
  ])("by %s: captures the message, then closes the connection with no answer", async (_way, headers, body) => {
    await expect(send(mock(), body, headers)).rejects.toThrow(/socket hang up|ECONNRESET/);
    const [message] = (await mock().outbox.list()).messages;
    expect(message).toBeDefined();
    const [entry] = (await mock().journal.list()).requests;
    expect(entry).toMatchObject({ fault: "lost_answer", message_id: message?.id, response: null, status: 0 });
  });

  it("by rule: a retry with the same Idempotency-Key gets the answer that was lost", async () => {
    await mock().faults.add({ fault: "lost_answer", times: 1 });
    await expect(send(mock(), aSendRequest(), { "Idempotency-Key": "lost-1" })).rejects.toThrow();
    const retried = await send(mock(), aSendRequest(), { "Idempotency-Key": "lost-1" });
    expect(retried.status).toBe(200);
    expect(retried.headers["idempotency-replayed"]).toBe("true");
    expect(messageIdOf(retried)).toBe((await mock().outbox.list()).messages[0]?.id);
    expect((await mock().outbox.list()).messages).toHaveLength(1);
  });
});

describe("an injected answer", () => {
  const mock = sharedMock();

  /** The first send with the key, under `rule` (once), and whether the retry without a fault got that response again. */
  async function firstThenRetry(rule: FaultRuleInput, key: string) {
    await mock().faults.add({ ...rule, times: 1 });
    // Read as text: a malformed_response's body is no JSON a parser takes.
    const first = await send(mock(), aSendRequest(), { "Idempotency-Key": key })
      .buffer(true)
      .parse((response, done) => {
        let text = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => (text += chunk));
        response.on("end", () => done(null, text));
      })
      .then(
        (response) => ({ status: response.status, text: response.body as string }),
        () => ({ status: 0, text: "" }),
      );
    const retry = await send(mock(), aSendRequest(), { "Idempotency-Key": key });
    return { first, retry, replayed: retry.headers["idempotency-replayed"] === "true", captured: (await mock().outbox.list()).total };
  }

  it.each<[string, FaultRuleInput, number]>([
    ["malformed_response", { fault: "malformed_response" }, 200],
    ["a respond rule's 200", { fault: "respond", status: 200, body: { success: true, message_id: "msg_made-up", status: "queued" } }, 200],
    ["a respond rule's 4xx", { fault: "respond", status: 409, body: "conflict, from a proxy" }, 409],
    ["timeout", { fault: "timeout", delay_ms: 50 }, 0],
    ["disconnect", { fault: "disconnect" }, 0],
    ["server_error", { fault: "server_error", status: 503 }, 503],
    ["rate_limit", { fault: "rate_limit" }, 429],
  ])("is not kept when it is not the service's own (%s): the retry is processed, and sends the email", async (_label, rule, status) => {
    const { first, retry, replayed, captured } = await firstThenRetry(rule, `injected-${rule.fault}-${status}`);

    expect(first.status).toBe(status);
    expect(replayed).toBe(false);
    expect(retry.status).toBe(200);
    expect(messageIdOf(retry)).toMatch(/^msg_/);
    await expectContract(retry);
    expect(captured).toBe(1);
  });

  it.each<[string, FaultRuleInput, number]>([
    ["invalid_recipient", { fault: "invalid_recipient" }, 422],
    ["invalid_template_id", { fault: "invalid_template_id" }, 422],
    ["missing_template_data", { fault: "missing_template_data" }, 422],
  ])("is kept when it stands for the service's final refusal (%s): the retry gets it again", async (_label, rule, status) => {
    const { first, retry, replayed, captured } = await firstThenRetry(rule, `final-${rule.fault}`);

    expect(first.status).toBe(status);
    expect(replayed).toBe(true);
    expect(retry.status).toBe(status);
    expect(retry.text).toBe(first.text);
    expect(captured).toBe(0);
  });

  it("keeps a latency fault's answer, which is the service's own, only late", async () => {
    const { retry, replayed, captured } = await firstThenRetry({ fault: "latency", delay_ms: 10 }, "late-1");
    expect(replayed).toBe(true);
    expect(retry.status).toBe(200);
    expect(captured).toBe(1);
  });
});

describe("a real retrying client (got, retrying POST on network errors)", () => {
  const retrying = { limit: 2, methods: ["POST" as const], calculateDelay: ({ computedValue }: { computedValue: number }) => (computedValue === 0 ? 0 : 10) };

  it("sends exactly one email when it sends an Idempotency-Key", async () => {
    const mock = await aRunningMockForThisTest();
    await mock.faults.add({ fault: "lost_answer", times: 1 });
    const response = await got
      .post(`${mock.url}/send`, { json: aSendRequest(), headers: { ...bearer(), "Idempotency-Key": "welcome-ada" }, retry: retrying })
      .json<{ message_id: string }>();
    expect((await mock.outbox.list()).messages.map((message) => message.id)).toEqual([response.message_id]);
  });

  it("sends the email twice without one", async () => {
    const mock = await aRunningMockForThisTest();
    await mock.faults.add({ fault: "lost_answer", times: 1 });
    await got.post(`${mock.url}/send`, { json: aSendRequest(), headers: bearer(), retry: retrying }).json();
    expect((await mock.outbox.list()).messages).toHaveLength(2);
  });
});

describe("the IETF rate-limit fields", () => {
  it("carry the policy and the caller's state as structured fields beside RateLimit-Limit/-Remaining/-Reset", async () => {
    const mock = await aMockForThisTest({ rateLimit: { requests: 10, perSeconds: 60, burst: 3 } });
    const response = await send(mock, aSendRequest());

    // Each is a List of one Item: the policy's name as a String, its numbers as parameters.
    const policies = parseList(response.headers["ratelimit-policy"] as string);
    const states = parseList(response.headers["ratelimit"] as string);
    const described = (items: typeof policies): unknown[] => items.map(([name, parameters]) => [name as unknown, Object.fromEntries(parameters) as unknown]);
    expect(described(policies)).toEqual([["default", { q: 3, w: 60 }]]);
    expect(described(states)).toEqual([["default", { r: Number(response.headers["ratelimit-remaining"]), t: Number(response.headers["ratelimit-reset"]) }]]);
    await expectContract(response);
  });
});
