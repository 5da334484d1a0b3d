// How fault rules match and count, probability and seed, which trigger wins, and the switches that turn the header and magic recipients off.

import request, { type Response } from "supertest";
import { describe, expect, it } from "vitest";
import type { FaultRuleInput, SendMock } from "../../src/index.js";
import { expectError } from "../support/error-responses.js";
import {
  addFault,
  capturedCount,
  faultHeaders,
  getFaults,
  lastJournalEntry,
  listFaults,
  magicRecipient,
  postFault,
  resetOverHttp,
  send,
  statusesOf,
  TIMER_SLACK_MS,
  timed,
} from "../support/fault-calls.js";
import { aMock, aMockForThisTest, bearer, sharedMockBuiltBy } from "../support/helpers.js";

describe("the rules", () => {
  const theMock = sharedMockBuiltBy(() => aMock());

  it("are tried in the order they were added: the first that matches applies", async () => {
    const mock = theMock();
    await addFault(mock, { fault: "server_error", status: 503, match: { to: "*@example.org" } });
    await addFault(mock, { fault: "rate_limit" });
    await addFault(mock, { fault: "server_error", status: 502 });

    expect((await send(mock, { with: { to: "ada@example.org" } })).status).toBe(503);
    expect((await send(mock, { with: { to: "ada@example.com" } })).status).toBe(429);
  });

  it("match `to` as a case-insensitive glob such as *@example.com", async () => {
    const mock = theMock();
    await addFault(mock, { fault: "server_error", match: { to: "*@example.com" } });

    expect((await send(mock, { with: { to: "ADA@Example.COM" } })).status).toBe(500);
    expect((await send(mock, { with: { to: "ada@example.org" } })).status).toBe(200);
  });

  it("match only `*` and `?` as wildcards: a hostile extglob is literal text and the send is answered at once", async () => {
    const mock = theMock();
    await addFault(mock, { fault: "server_error", match: { to: "+(*a)b" } });
    await addFault(mock, { fault: "rate_limit", match: { to: "a?a+x@*.com" } });

    expect((await send(mock, { with: { to: `${"a".repeat(28)}@example.com` } })).status).toBe(200);
    expect((await send(mock, { with: { to: "aXa+x@example.com" } })).status).toBe(429);
  });

  it("are at most max_rules: one more answers 400 invalid_request, and removing one makes room", async () => {
    const mock = await aMockForThisTest({ maxRules: 3, faults: [{ fault: "latency", delay_ms: 0 }] });
    await addFault(mock, { fault: "server_error", match: { to: "a@example.com" } });
    const last = await addFault(mock, { fault: "server_error", match: { to: "b@example.com" } });

    expect(expectError(await postFault(mock, { fault: "rate_limit" }), { status: 400, code: "invalid_request" })).toMatch(/at most 3 \(max_rules\)/);
    await request(mock.app).delete(`/_mock/faults/${last.id}`).expect(204);
    expect((await postFault(mock, { fault: "rate_limit" })).status).toBe(201);
  });

  it("match `template_id` as a glob such as password-*", async () => {
    const mock = theMock();
    await addFault(mock, { fault: "server_error", match: { template_id: "password-*" } });
    const passwordReset = {
      template_id: "password-reset",
      data: { name: "Ada", company: "Acme", token: "t-1", expires_in: "30 minutes" },
    };

    expect((await send(mock, { with: passwordReset })).status).toBe(500);
    expect((await send(mock, { with: { template_id: "welcome" } })).status).toBe(200);
  });

  it("match `api_key` exactly, and show only its last 4 characters as api_key_hint, never the key", async () => {
    const mock = theMock();
    const key = "sk_test_faulty_key_9f3c";

    const added = await addFault(mock, { fault: "server_error", match: { api_key: key } });

    expect(added.api_key_hint).toBe("9f3c");
    expect(JSON.stringify(added)).not.toContain(key);
    expect((await getFaults(mock)).text).not.toContain(key);
    expect(JSON.stringify(await mock.faults.list())).not.toContain(key);
    expect((await send(mock, { headers: bearer(key) })).status).toBe(500);
    expect((await send(mock, { headers: bearer("sk_test_faulty_key_9f3") })).status).toBe(200);
    expect((await send(mock, { headers: bearer("sk_test_other_key_9f3c") })).status).toBe(200);
  });

  it("apply a rule with times: 2 exactly twice, counting down in the list, then remove it", async () => {
    const mock = theMock();
    const rule = await addFault(mock, { fault: "server_error", times: 2 });

    expect((await send(mock)).status).toBe(500);
    expect(await listFaults(mock)).toEqual([{ ...rule, times: 1 }]);
    expect((await send(mock)).status).toBe(500);
    expect(await listFaults(mock)).toEqual([]);
    expect((await send(mock)).status).toBe(200);
  });

  it("count times exactly under concurrency: 20 concurrent sends against times: 5 fault exactly 5", async () => {
    const mock = theMock();
    await addFault(mock, { fault: "server_error", times: 5 });

    const responses = await Promise.all(Array.from({ length: 20 }, () => send(mock)));

    const statuses = statusesOf(responses);
    expect(statuses.filter((status) => status === 500)).toHaveLength(5);
    expect(statuses.filter((status) => status === 200)).toHaveLength(15);
    expect(await capturedCount(mock)).toBe(15);
    expect(await listFaults(mock)).toEqual([]);
  });

  it("never apply a rule with probability 0, nor count its times down", async () => {
    const mock = theMock();
    const rule = await addFault(mock, { fault: "server_error", probability: 0, times: 3 });

    const responses: Response[] = [];
    for (let i = 0; i < 20; i += 1) responses.push(await send(mock));

    expect(new Set(statusesOf(responses))).toEqual(new Set([200]));
    expect(await listFaults(mock)).toEqual([rule]);
  });

  it("compose latency: a latency rule and then a server_error rule answer the server_error after the delay", async () => {
    const mock = theMock();
    await addFault(mock, { fault: "latency", delay_ms: 150 });
    await addFault(mock, { fault: "server_error", status: 503 });

    const [response, elapsedMs] = await timed(() => send(mock));

    expectError(response, { status: 503, code: "server_error" });
    expect(elapsedMs).toBeGreaterThanOrEqual(150 - TIMER_SLACK_MS);
    expect(await capturedCount(mock)).toBe(0);
    expect(await lastJournalEntry(mock)).toMatchObject({ status: 503, fault: "server_error" });
  });

  it("add up the delays of every latency rule that matches", async () => {
    const mock = theMock();
    await addFault(mock, { fault: "latency", delay_ms: 100 });
    await addFault(mock, { fault: "latency", delay_ms: 100 });

    const [response, elapsedMs] = await timed(() => send(mock));

    expect(response.status).toBe(200);
    expect(elapsedMs).toBeGreaterThanOrEqual(200 - TIMER_SLACK_MS);
    expect(await capturedCount(mock)).toBe(1);
  });
});

describe("probability and seed", () => {
  const HALF_THE_TIME: FaultRuleInput = { fault: "server_error", probability: 0.5 };

  /** The statuses of `count` sends made one after the other. */
  async function statusesOfSends(mock: SendMock, count = 40): Promise<number[]> {
    const statuses: number[] = [];
    for (let i = 0; i < count; i += 1) statuses.push((await send(mock)).status);
    return statuses;
  }

  it("gives the same outcomes for the same sends with the same seed", async () => {
    const first = await aMockForThisTest({ seed: 42 });
    const second = await aMockForThisTest({ seed: 42 });
    await addFault(first, HALF_THE_TIME);
    await addFault(second, HALF_THE_TIME);

    const firstStatuses = await statusesOfSends(first);
    const secondStatuses = await statusesOfSends(second);

    expect(secondStatuses).toEqual(firstStatuses);
    expect(new Set(firstStatuses)).toEqual(new Set([200, 500]));
  });

  it("gives another sequence with another seed", async () => {
    const first = await aMockForThisTest({ seed: 42 });
    const second = await aMockForThisTest({ seed: 7 });
    await addFault(first, HALF_THE_TIME);
    await addFault(second, HALF_THE_TIME);

    expect(await statusesOfSends(second)).not.toEqual(await statusesOfSends(first));
  });

  it("replays the same sequence after a reset, from a freshly seeded generator", async () => {
    const mock = await aMockForThisTest({ seed: 42, faults: [HALF_THE_TIME] });

    const before = await statusesOfSends(mock, 20);
    await resetOverHttp(mock);
    const after = await statusesOfSends(mock, 20);

    expect(after).toEqual(before);
    expect(new Set(before)).toEqual(new Set([200, 500]));
  });
});

describe("which trigger wins: the header, then a magic recipient, then the rules", () => {
  const theMock = sharedMockBuiltBy(() => aMock());

  it("takes the header before a magic recipient", async () => {
    const mock = theMock();

    const response = await send(mock, {
      headers: faultHeaders({ fault: "server_error", status: 503 }),
      with: { to: magicRecipient({ fault: "rate_limit" }) },
    });

    expectError(response, { status: 503, code: "server_error" });
    expect(await lastJournalEntry(mock)).toMatchObject({ fault: "server_error" });
  });

  it("takes the header before the rules", async () => {
    const mock = theMock();
    await addFault(mock, { fault: "rate_limit" });

    const response = await send(mock, { headers: faultHeaders({ fault: "server_error", status: 502 }) });

    expectError(response, { status: 502, code: "server_error" });
  });

  it("takes a magic recipient before the rules, and leaves the rules' times untouched", async () => {
    const mock = theMock();
    const rule = await addFault(mock, { fault: "rate_limit", times: 1 });

    const response = await send(mock, { with: { to: magicRecipient({ fault: "server_error", status: 504 }) } });

    expectError(response, { status: 504, code: "server_error" });
    expect(await listFaults(mock)).toEqual([rule]);
  });

  it("waits a header latency, then answers a rule's server_error", async () => {
    const mock = theMock();
    await addFault(mock, { fault: "server_error" });

    const [response, elapsedMs] = await timed(() => send(mock, { headers: faultHeaders({ fault: "latency", delay_ms: 150 }) }));

    expectError(response, { status: 500, code: "server_error" });
    expect(elapsedMs).toBeGreaterThanOrEqual(150 - TIMER_SLACK_MS);
  });
});

describe("with allowFaultHeader: false and allowMagicRecipients: false", () => {
  const theMock = sharedMockBuiltBy(() => aMock({ allowFaultHeader: false, allowMagicRecipients: false }));

  it("ignores the X-Sendmock-Fault header: the send is accepted and captured", async () => {
    const mock = theMock();

    const response = await send(mock, { headers: faultHeaders({ fault: "server_error", status: 503 }) });

    expect(response.status).toBe(200);
    expect(await capturedCount(mock)).toBe(1);
    expect(await lastJournalEntry(mock)).toMatchObject({ status: 200, fault: null });
  });

  it("ignores even a header that names no fault", async () => {
    const mock = theMock();

    const response = await send(mock, { headers: { "X-Sendmock-Fault": "explode", "X-Sendmock-Fault-Status": "abc" } });

    expect(response.status).toBe(200);
  });

  it("sends to a magic address like any other: accepted and captured", async () => {
    const mock = theMock();
    const to = magicRecipient({ fault: "server_error", status: 503 });

    const response = await send(mock, { with: { to } });

    expect(response.status).toBe(200);
    expect((await mock.outbox.get("latest"))?.to).toBe(to);
  });

  it("still applies the rules", async () => {
    const mock = theMock();
    await addFault(mock, { fault: "rate_limit", retry_after_s: 3 });

    const response = await send(mock);

    expectError(response, { status: 429, code: "rate_limited" });
    expect(response.headers["retry-after"]).toBe("3");
  });
});
