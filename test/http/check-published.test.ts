// `sendmock check` against a stand-in for the real service written from its spec alone
// (test/support/spec-service.ts): judged by the published contract it passes, judged by
// sendmock's own it fails; a rate limit or a refused key leaves requests inconclusive, never
// passed; each flaw the spec allows us to see is named by the right check.

import { afterAll, describe, expect, it } from "vitest";
import { runCheck, type CheckOptions, type CheckReport } from "../../src/index.js";
import { runFailed } from "../../src/check/report.js";
import { failedChecks, named, SLOW_MACHINE } from "../support/check-runs.js";
import { startSpecService, type SpecService, type SpecServiceOptions, type SpecServiceVariant } from "../support/spec-service.js";

// The tests run side by side (describe.concurrent: most of their time is waiting on a pace or a
// Retry-After, 13.1 s of the suite's in CI one after another), each with a service of its own, all
// closed when the file ends.
const services: SpecService[] = [];
afterAll(async () => {
  await Promise.all(services.splice(0).map((service) => service.close()));
});

async function service(variant: SpecServiceVariant, options?: SpecServiceOptions): Promise<SpecService> {
  const started = await startSpecService(variant, options);
  services.push(started);
  return started;
}

function check(target: SpecService, options: Partial<CheckOptions> = {}): Promise<CheckReport> {
  return runCheck({ baseUrl: target.url, apiKey: "live-key-7f3a", generate: 40, seed: 5, ...options });
}

/** What the check sent to POST /send, with its status (it also asks GET /_mock/templates/{id} for sample data first). */
const sends = (target: SpecService) => target.received.filter((request) => request.method === "POST" && request.path === "/send");

const outcomes = (report: CheckReport): Record<string, string> => Object.fromEntries(report.results.map((result) => [result.id, result.outcome]));

describe.concurrent("sendmock check against a service that keeps its published spec", SLOW_MACHINE, () => {
  it("passes every case and named check under the published contract, its own codes, statuses and extra members notwithstanding", async () => {
    const target = await service("conforming");
    const report = await check(target);
    expect(report.contract).toBe("published (openapi/service.yaml)");
    expect(
      report.results.filter((result) => result.outcome === "failed"),
      JSON.stringify(report.results, null, 1),
    ).toEqual([]);
    expect(runFailed(report)).toBe(false);
    expect(outcomes(report)).toMatchObject({
      "unknown-template": "passed",
      "invalid-recipient": "passed",
      "unknown-field": "skipped",
      negative_data_rejection: "passed",
      unsupported_method: "passed",
      response_schema_conformance: "passed",
    });
    // Judged on real responses: the service refused with its own codes and statuses.
    const statuses = new Set(target.received.map((request) => request.status));
    expect([...statuses].sort()).toEqual([400, 401, 404, 422]);
    expect(target.sent).toEqual([]);
  });

  it("with --allow-send and --data, its sends are accepted and judged, to --recipient only", async () => {
    const target = await service("conforming");
    const report = await check(target, { allowSend: true, recipient: "qa@example.com", data: { name: "Ada" } });
    expect(failedChecks(report.results)).toEqual([]);
    expect(outcomes(report)).toMatchObject({ "valid-send": "passed", positive_data_acceptance: "passed" });
    expect(target.sent.length).toBeGreaterThan(2);
    expect(new Set(target.sent.map((sent) => sent.to))).toEqual(new Set(["qa@example.com"]));
  });

  it("fails it under --contract sendmock, which demands sendmock's codes, statuses and closed bodies", async () => {
    const target = await service("conforming");
    const report = await check(target, { contract: "sendmock" });
    expect(report.contract).toBe("sendmock (openapi/send.yaml)");
    expect(outcomes(report)).toMatchObject({ "unknown-field": "failed" });
    expect(failedChecks(report.results)).toEqual(expect.arrayContaining(["response_schema_conformance", "negative_data_rejection", "unsupported_method"]));
    const schema = named(report.results).find((result) => result.id === "response_schema_conformance");
    expect(schema?.problems[0]?.path).toMatch(/^\/body\//);
  });
});

describe.concurrent("sendmock check never takes an unjudgeable answer for a verdict", SLOW_MACHINE, () => {
  it("a target limited to 12 sends an hour: each 429 is inconclusive, the run fails, and no named check counts one", async () => {
    const target = await service("rate-limited");
    const report = await check(target);
    const limited = sends(target).filter((request) => request.status === 429).length;
    // Retry-After asks for up to an hour, past --max-retry-wait: each 429 request is given up at once.
    expect(limited).toBeGreaterThan(0);
    expect(report.inconclusive.rate_limited).toBe(limited);
    expect(runFailed(report)).toBe(true);
    // Every response but a 429 was judged, and only those: the fixed cases' 9 responses came first.
    const responded = target.received.filter((request) => request.path !== "/_mock/templates/welcome" && request.status !== 429).length;
    expect(named(report.results).find((result) => result.id === "not_a_server_error")?.judged).toBe(responded - 9);
  });

  it("a fixed case answered 429 is inconclusive, with why and the flag that helps", async () => {
    const target = await service("rate-limited", { rateLimit: { requests: 3, windowSeconds: 3600 } });
    const report = await check(target, { generate: 0 });
    // The limit counts requests that pass authentication: the cases without a key get a 401 and judged.
    expect(Object.fromEntries(report.results.filter((result) => result.outcome !== "skipped").map((result) => [result.id, result.outcome]))).toEqual({
      "missing-to": "passed",
      "missing-template-id": "passed",
      "missing-data": "passed",
      "invalid-recipient": "inconclusive",
      "unknown-template": "inconclusive",
      "missing-auth": "passed",
      "malformed-auth": "passed",
      "wrong-content-type": "inconclusive",
      "malformed-json": "inconclusive",
    });
    for (const result of report.results.filter((result) => result.outcome === "inconclusive")) {
      expect(result.skipReason).toMatch(/^rate limited: 429 asking for a wait of \d+ s, over --max-retry-wait$/);
    }
    expect(report.inconclusive).toEqual({ rate_limited: 4, key_refused: 0, not_sent: 0, not_answering: 0 });
  });

  it("waits out a 429's Retry-After and sends the same request again, so every case is judged", async () => {
    const target = await service("rate-limited", { rateLimit: { requests: 1, windowSeconds: 1 } });
    const report = await check(target, { generate: 0, only: ["missing-to", "invalid-recipient", "unknown-template"] });
    expect(target.received.filter((request) => request.status === 429).length).toBeGreaterThan(0);
    expect(report.results.map((result) => `${result.id} ${result.outcome}`)).toEqual([
      "missing-to passed",
      "invalid-recipient passed",
      "unknown-template passed",
    ]);
    expect(runFailed(report)).toBe(false);
  });

  it("with --rate-limit paces the run under the target's limit: no 429 at all", async () => {
    const target = await service("rate-limited", { rateLimit: { requests: 1, windowSeconds: 1 } });
    const report = await check(target, { generate: 0, only: ["missing-to", "invalid-recipient"], pace: { requests: 1, perMs: 1100 } });
    expect(sends(target).map((request) => request.status)).toEqual([422, 422]);
    expect(runFailed(report)).toBe(false);
  });

  it("--rate-limit N/s against a service allowing N in any rolling second draws no 429: never N+1 in a second, wherever the trips put them", async () => {
    // The fixed cases alone: some ten requests, over two windows of four. Spaced starts alone drew a 429 every ~20 requests.
    const target = await service("rate-limited", { rateLimit: { requests: 4, windowSeconds: 1 } });
    const report = await check(target, { generate: 0, pace: { requests: 4, perMs: 1000 } });
    const statuses = sends(target).map((request) => request.status);
    expect(statuses.length).toBeGreaterThan(8);
    expect(statuses.filter((status) => status === 429)).toEqual([]);
    expect(runFailed(report)).toBe(false);
  });

  it("keeps to the quota the service's RateLimit-Policy publishes without --rate-limit: never more in its window, no 429", async () => {
    const target = await service("rate-limited", { rateLimit: { requests: 4, windowSeconds: 1, fields: "policy" } });
    const report = await check(target, { generate: 0 });
    const statuses = sends(target).map((request) => request.status);
    expect(statuses.length).toBeGreaterThan(8);
    expect(statuses.filter((status) => status === 429)).toEqual([]);
    expect(runFailed(report)).toBe(false);
  });

  for (const fields of ["ietf", "x"] as const) {
    it(`follows the service's own ${fields === "ietf" ? "RateLimit field" : "X-RateLimit-* fields"} without --rate-limit: none left, it waits for the reset, and draws no 429`, async () => {
      const target = await service("rate-limited", { rateLimit: { requests: 4, windowSeconds: 1, fields } });
      const report = await check(target, { generate: 0 });
      const statuses = sends(target).map((request) => request.status);
      expect(statuses.length).toBeGreaterThan(8);
      expect(statuses.filter((status) => status === 429)).toEqual([]);
      expect(runFailed(report)).toBe(false);
    });
  }

  it("a 429 without Retry-After waits a second; --max-retries 0 leaves it inconclusive at once", async () => {
    const target = await service("rate-limited", { rateLimit: { requests: 1, windowSeconds: 1, retryAfter: false } });
    const retried = await check(target, { generate: 0, only: ["missing-to", "missing-data"] });
    expect(retried.results.map((result) => result.outcome)).toEqual(["passed", "passed"]);
    const impatient = await check(target, { generate: 0, only: ["missing-to", "missing-data"], maxRetries: 0 });
    expect(impatient.results.map((result) => result.outcome)).toContain("inconclusive");
    expect(impatient.inconclusive.rate_limited).toBeGreaterThan(0);
  });

  it("a target that refuses the key: its 403s are inconclusive, the requests without a key are still judged, and the run stops sending after 10 in a row", async () => {
    const target = await service("refuses-key");
    const report = await check(target);
    expect(report.inconclusive.key_refused).toBeGreaterThanOrEqual(10);
    expect(report.inconclusive.not_sent).toBeGreaterThan(0);
    expect(runFailed(report)).toBe(true);
    expect(outcomes(report)).toMatchObject({
      "missing-to": "inconclusive",
      "missing-auth": "passed",
      "malformed-auth": "passed",
      negative_data_rejection: "inconclusive",
    });
    expect(failedChecks(report.results)).toEqual([]);
    // What was sent with the key got 403; nothing the check did not send reached the target.
    expect(sends(target).length).toBe(report.inconclusive.key_refused + sends(target).filter((request) => request.status === 401).length);
  });
});

describe.concurrent("sendmock check names the flaw the published spec lets it see", SLOW_MACHINE, () => {
  it("a 200 without its status member: response_schema_conformance at /body/status, not status_code_conformance", async () => {
    const target = await service("success-without-status");
    const report = await check(target, { allowSend: true, recipient: "qa@example.com", data: { name: "Ada" } });
    expect(failedChecks(report.results)).toEqual(["response_schema_conformance"]);
    const failure = named(report.results).find((result) => result.id === "response_schema_conformance");
    expect(failure?.problems[0]).toMatchObject({ path: "/body/status", message: "status is required" });
    const send = report.results.find((result) => result.id === "valid-send");
    expect(send?.problems.map((problem) => problem.path)).toEqual(["/body/status"]);
  });

  it("a 500 on non-ASCII data, found without --data: data is filled with Unicode keys and values, and shrunk", async () => {
    const target = await service("server-error-on-non-ascii-data");
    const report = await check(target, { seed: 3 });
    expect(failedChecks(report.results)).toEqual(["not_a_server_error"]);
    const failure = named(report.results).find((result) => result.id === "not_a_server_error");
    const body = /^\([^)]*\) POST \/send (.*)$/u.exec(failure?.reproduction?.request ?? "")?.[1] ?? "{}";
    const data = (JSON.parse(body) as { data?: Record<string, unknown> }).data ?? {};
    // Shrunk until one member is left that is not ASCII, in its key or its value: all it takes.
    const unicode = Object.entries(data).filter((member) => /\P{ASCII}/u.test(JSON.stringify(member)));
    expect(unicode, body).toHaveLength(1);
  });
});
