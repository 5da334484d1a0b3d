// `runCheck` with a real-mail budget and waivers, against the stand-in written from the service's spec:
// --max-sends caps the sends the service accepts and the report says how many were used; a waiver
// turns the findings it matches into "waived" (shown in the report and the JUnit file) and one that
// waived nothing is stale; `planCheck` (--dry-run) lists exactly what a run with its seed sends.

import { afterAll, describe, expect, it } from "vitest";
import { planCheck, runCheck, type CheckOptions, type CheckReport } from "../../src/index.js";
import { finalReport, junitXml, runFailed } from "../../src/check/report.js";
import { skipWaiver, type Waiver } from "../../src/check/waivers.js";
import { SLOW_MACHINE } from "../support/check-runs.js";
import { startSpecService, type SpecService, type SpecServiceVariant } from "../support/spec-service.js";

// The tests run side by side, each with a stand-in of its own, all closed when the file ends.
const services: SpecService[] = [];
afterAll(async () => {
  await Promise.all(services.splice(0).map((service) => service.close()));
});

async function service(variant: SpecServiceVariant): Promise<SpecService> {
  const started = await startSpecService(variant);
  services.push(started);
  return started;
}

const options = (target: SpecService, more: Partial<CheckOptions> = {}): CheckOptions => ({
  baseUrl: target.url,
  apiKey: "live-key-7f3a",
  generate: 40,
  seed: 11,
  data: { name: "Ada" },
  ...more,
});

const outcomeOf = (report: CheckReport, id: string): string | undefined => report.results.find((result) => result.id === id)?.outcome;

describe.concurrent("--max-sends", SLOW_MACHINE, () => {
  it("caps the sends the service accepts, sends no valid request once they are used, and says how many were used", async () => {
    const target = await service("conforming");
    const report = await runCheck(options(target, { allowSend: true, recipient: "qa@example.com", maxSends: 4 }));
    expect(target.sent).toHaveLength(4);
    expect(target.sent.every((sent) => sent.to === "qa@example.com")).toBe(true);
    expect(report.sends).toMatchObject({ max: 4, used: 4 });
    expect(report.sends?.withheld).toBeGreaterThan(0);
    expect(finalReport(report)).toContain(`real sends: 4 of --max-sends 4 used (${report.sends?.withheld ?? 0} valid requests not sent once it was spent)`);
    expect(junitXml(report, target.url)).toContain(`<property name="real sends" value="real sends: 4 of --max-sends 4 used`);
    // Spent budget is not a failure: nothing was found wrong.
    expect(runFailed(report)).toBe(false);
  });

  it("leaves the idempotency case and positive_data_acceptance skipped, saying why, when the budget is gone before them", async () => {
    const target = await service("conforming");
    const report = await runCheck(options(target, { allowSend: true, recipient: "qa@example.com", maxSends: 1 }));
    expect(target.sent).toHaveLength(1);
    expect(outcomeOf(report, "valid-send")).toBe("passed");
    expect(report.results.find((result) => result.id === "idempotency-key")?.skipReason).toBe("delivers mail: the --max-sends budget of 1 was spent");
    expect(report.results.find((result) => result.id === "positive_data_acceptance")?.skipReason).toMatch(
      /^the --max-sends budget was spent before any of its \d+ valid requests$/,
    );
  });

  it("is refused at 0: allowSend with no budget would send nothing", async () => {
    const target = await service("conforming");
    await expect(runCheck(options(target, { allowSend: true, recipient: "qa@example.com", maxSends: 0 }))).rejects.toThrow(
      /maxSends must be a whole number, at least 1/,
    );
    expect(target.received).toEqual([]);
  });
});

describe.concurrent("waivers", SLOW_MACHINE, () => {
  /** The data-optional service takes a send without data, or with `data: null`: the spec says it must refuse both (rule 1). */
  const dataMissing: Waiver[] = [
    {
      kind: "check",
      target: "negative_data_rejection",
      match: { request: "(data missing)" },
      reason: "we accept data being optional",
      source: "waivers.yaml, line 1",
    },
    { kind: "check", target: "negative_data_rejection", match: { request: "(data: null)" }, reason: "null data is no data", source: "waivers.yaml, line 4" },
    { kind: "case", target: "missing-data", match: { pointer: "/status" }, reason: "we accept data being optional", source: "waivers.yaml, line 7" },
    { kind: "check", target: "not_a_server_error", match: {}, reason: "no 5xx seen yet", source: "waivers.yaml, line 10" },
  ];

  it("turn the findings they match into waived, shown in the report and the JUnit file, and a waiver that matched nothing into stale", async () => {
    const target = await service("data-optional");
    const unwaived = await runCheck(options(target));
    expect(outcomeOf(unwaived, "negative_data_rejection")).toBe("failed");
    expect(outcomeOf(unwaived, "missing-data")).toBe("failed");

    const report = await runCheck(options(target, { waivers: dataMissing }));
    expect(outcomeOf(report, "negative_data_rejection")).toBe("waived");
    expect(outcomeOf(report, "missing-data")).toBe("waived");
    expect(runFailed(report)).toBe(false);
    const [check, nullData, testCase, stale] = report.waivers;
    expect(check?.findings).toBeGreaterThan(0);
    expect(nullData?.findings).toBeGreaterThan(0);
    expect(testCase?.findings).toBe(1);
    expect(stale?.findings).toBe(0);

    const printed = finalReport(report);
    expect(printed).toContain(
      `waived: negative_data_rejection where the request contains "(data missing)" (waivers.yaml, line 1): ${check?.findings === 1 ? "1 finding" : `${check?.findings ?? 0} findings`}, because we accept data being optional`,
    );
    expect(printed).toContain(
      "waived: case missing-data where the pointer is /status (waivers.yaml, line 7): 1 finding, because we accept data being optional",
    );
    expect(printed).toContain(
      "stale waiver: not_a_server_error (waivers.yaml, line 10) waived nothing: remove it, or fix its match (reason given: no 5xx seen yet)",
    );
    expect(printed.trimEnd().split("\n").at(-1)).toMatch(/^\d+ passed, 0 failed$/);

    const xml = junitXml(report, target.url);
    expect(xml).toMatch(
      /<testcase classname="sendmock check" name="negative_data_rejection" time="[\d.]+">\s*<skipped message="waived: \d+ failing requests \(we accept data being optional; null data is no data\)"\/>/,
    );
    expect(xml).toMatch(
      /<testcase classname="sendmock check" name="missing data" time="[\d.]+">\s*<skipped message="waived: 1 problem \(we accept data being optional\)"\/>/,
    );
    expect(xml).toContain('<testcase classname="sendmock check" name="stale waiver: not_a_server_error" time="0.000">');
    expect(xml.match(/<property name="waiver" /g)).toHaveLength(4);
  });

  it("leave a failure they do not match failed, and shrink it to a request they do not match", async () => {
    const target = await service("data-optional");
    // A match on a request no generated request holds waives nothing.
    const narrow: Waiver[] = [
      { kind: "check", target: "negative_data_rejection", match: { request: "never in any request" }, reason: "x", source: "w.yaml, line 1" },
    ];
    const report = await runCheck(options(target, { waivers: narrow }));
    expect(outcomeOf(report, "negative_data_rejection")).toBe("failed");
    expect(report.waivers[0]?.findings).toBe(0);
    expect(runFailed(report)).toBe(true);
  });

  it("--skip-check waives every finding of a check or case whole", async () => {
    const target = await service("data-optional");
    const report = await runCheck(options(target, { waivers: [skipWaiver("negative_data_rejection"), skipWaiver("missing-data")] }));
    expect(outcomeOf(report, "negative_data_rejection")).toBe("waived");
    expect(outcomeOf(report, "missing-data")).toBe("waived");
    expect(finalReport(report)).toMatch(/waived: negative_data_rejection \(--skip-check\): \d+ findings\n/);
  });
});

describe.concurrent("planCheck (--dry-run)", SLOW_MACHINE, () => {
  it("sends nothing, and lists exactly the requests a run with its seed then sends, in order", async () => {
    const target = await service("conforming");
    const plan = await planCheck(options(target));
    expect(target.received).toEqual([]);
    expect(plan.seed).toBe(11);
    expect(plan.requests.every((request) => !request.delivers)).toBe(true);
    const report = await runCheck(options(target));
    expect(report.results.some((result) => result.outcome === "failed")).toBe(false);
    expect(target.received.map((request) => `${request.method} ${request.body}`)).toEqual(
      plan.requests.map(({ request }) => `${request.method} ${request.method === "GET" || request.method === "DELETE" ? "" : (request.body ?? "")}`),
    );
  });

  it("with allowSend marks the requests that deliver mail and the budget they draw on", async () => {
    const target = await service("conforming");
    const plan = await planCheck(options(target, { allowSend: true, recipient: "qa@example.com", maxSends: 3 }));
    expect(target.received).toEqual([]);
    expect(plan.maxSends).toBe(3);
    const delivering = plan.requests.filter((request) => request.delivers);
    expect(delivering.map((request) => request.label).slice(0, 6)).toEqual([
      "valid send",
      "idempotency key replay (1 of 2)",
      "idempotency key replay (2 of 2)",
      "generated (valid)",
      "generated (valid, every optional field)",
      "generated (valid, the subject and every value past ASCII)",
    ]);
    expect(delivering.every(({ request }) => (JSON.parse(request.body ?? "{}") as { to?: unknown }).to === "qa@example.com")).toBe(true);
  });
});
