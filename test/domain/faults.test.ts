import { describe, expect, it } from "vitest";
import { faultFromHeaders, faultFromRecipient } from "../../src/domain/fault-triggers.js";
import { checkFaultRule, chosenFault, createMemoryFaultPlan, validFaultRule, type FaultPlan, type FaultTarget } from "../../src/domain/faults.js";
import { ApiError } from "../../src/errors.js";
import type { FaultRuleInput } from "../../src/wire.js";

const target: FaultTarget = { to: "ada@example.com", templateId: "welcome", apiKey: "key-aaaa-1111" };

function aPlan(initialRules: FaultRuleInput[] = [], seed: number | null = 7): FaultPlan {
  return createMemoryFaultPlan({ initialRules, seed });
}

async function kindsOver(plan: FaultPlan, requests: number, on: FaultTarget = target): Promise<(string | undefined)[]> {
  const kinds = [];
  for (let i = 0; i < requests; i += 1) kinds.push((await plan.decide(on, [])).fault?.kind);
  return kinds;
}

describe("choosing a fault", () => {
  it("applies the first matching rule, in the order added", async () => {
    const plan = aPlan();
    await plan.add({ fault: "server_error", match: { to: "*@other.test" } });
    await plan.add({ fault: "rate_limit" });
    await plan.add({ fault: "disconnect" });
    expect((await plan.decide(target, [])).fault?.kind).toBe("rate_limit");
  });

  it("matches to and template_id as case-insensitive globs and api_key exactly", async () => {
    const plan = aPlan([{ fault: "server_error", match: { to: "*@EXAMPLE.com", template_id: "wel*", api_key: "key-aaaa-1111" } }]);
    expect((await plan.decide(target, [])).fault?.kind).toBe("server_error");
    expect((await plan.decide({ ...target, apiKey: "key-bbbb-2222" }, [])).fault).toBeUndefined();
    expect((await plan.decide({ ...target, templateId: "order-receipt" }, [])).fault).toBeUndefined();
    expect((await plan.decide({ ...target, to: "ada@example.org" }, [])).fault).toBeUndefined();
  });

  it("counts times down and drops the rule at 0", async () => {
    const plan = aPlan([{ fault: "server_error", times: 2 }]);
    expect(await kindsOver(plan, 3)).toEqual(["server_error", "server_error", undefined]);
    expect(await plan.list()).toEqual([]);
  });

  it("adds up latency rules and goes on to the next rule", async () => {
    const plan = aPlan([
      { fault: "latency", delay_ms: 100 },
      { fault: "latency", delay_ms: 50, times: 1 },
      { fault: "server_error", status: 503 },
    ]);
    expect(await plan.decide(target, [])).toEqual({ latencyMs: 150, fault: chosenFault("server_error", { status: 503 }) });
    expect((await plan.decide(target, [])).latencyMs).toBe(100);
  });

  it("tries the one-off faults of a request before the rules", async () => {
    const plan = aPlan([{ fault: "server_error", times: 1 }]);
    const outcome = await plan.decide(target, [chosenFault("latency", { delayMs: 20 }), chosenFault("rate_limit", { retryAfterS: 3 })]);
    expect(outcome).toEqual({ latencyMs: 20, fault: chosenFault("rate_limit", { retryAfterS: 3 }) });
    expect((await plan.list())[0]?.times).toBe(1);
  });

  it("keeps only a hint of match.api_key", async () => {
    const plan = aPlan();
    const rule = await plan.add({ fault: "disconnect", match: { api_key: "secret-key-123456789" } });
    expect(rule.api_key_hint).toBe("6789");
    expect(JSON.stringify(await plan.list())).not.toContain("secret-key-123456789");
  });
});

describe("probability and seed", () => {
  const halfTheTime: FaultRuleInput[] = [{ fault: "server_error", probability: 0.5 }];

  it("gives the same outcomes for the same seed and the same requests", async () => {
    const first = await kindsOver(aPlan(halfTheTime, 42), 50);
    const second = await kindsOver(aPlan(halfTheTime, 42), 50);
    expect(first).toEqual(second);
    expect(new Set(first)).toEqual(new Set(["server_error", undefined]));
  });

  it("gives other outcomes for another seed", async () => {
    expect(await kindsOver(aPlan(halfTheTime, 1), 50)).not.toEqual(await kindsOver(aPlan(halfTheTime, 2), 50));
  });

  it("starts the sequence again on reset, with the config's rules back", async () => {
    const plan = aPlan([...halfTheTime, { fault: "disconnect", times: 1 }], 42);
    const before = await kindsOver(plan, 20);
    await plan.add({ fault: "rate_limit" });
    await plan.reset();
    expect(await kindsOver(plan, 20)).toEqual(before);
    expect((await plan.list()).map((rule) => rule.source)).toEqual(["config"]);
  });

  it("never applies probability 0 and always applies probability 1", async () => {
    expect(await kindsOver(aPlan([{ fault: "server_error", probability: 0 }]), 20)).toEqual(Array<undefined>(20).fill(undefined));
    expect(new Set(await kindsOver(aPlan([{ fault: "server_error", probability: 1 }]), 20))).toEqual(new Set(["server_error"]));
  });
});

describe("checking rules", () => {
  it.each([
    [{ fault: "rate_limit", status: 503 }, "status does not apply to the fault rate_limit (it takes retry_after_s)"],
    [{ fault: "invalid_recipient", delay_ms: 10 }, "delay_ms does not apply to the fault invalid_recipient"],
    [{ fault: "server_error", status: 501 }, "status of server_error must be one of 500, 502, 503, 504"],
  ] as [FaultRuleInput, string][])("refuses %j", (rule, problem) => {
    expect(checkFaultRule(rule)).toBe(problem);
  });

  it("refuses a rule of the wrong shape with an invalid_request naming the field", () => {
    expect(() => validFaultRule({ fault: "server_error", times: 0 })).toThrow(/Invalid fault rule: times must be >= 1/);
    expect(() => validFaultRule({ fault: "explode" })).toThrow(ApiError);
  });
});

describe("faults a request asks for", () => {
  it("reads the header family", () => {
    expect(faultFromHeaders({ fault: "server_error", status: "504", delay: undefined })).toEqual(chosenFault("server_error", { status: 504 }));
    expect(faultFromHeaders({ fault: "timeout", status: undefined, delay: "250" })).toEqual(chosenFault("timeout", { delayMs: 250 }));
    expect(faultFromHeaders({ fault: undefined, status: "504", delay: undefined })).toBeUndefined();
  });

  it("refuses an unknown fault or a bad number in a header", () => {
    expect(() => faultFromHeaders({ fault: "explode", status: undefined, delay: undefined })).toThrow(/X-Sendmock-Fault: unknown fault "explode"/);
    expect(() => faultFromHeaders({ fault: "server_error", status: "abc", delay: undefined })).toThrow(/X-Sendmock-Fault-Status must be a whole number/);
    expect(() => faultFromHeaders({ fault: "server_error", status: "418", delay: undefined })).toThrow(/must be one of 500, 502, 503, 504/);
  });

  it.each([
    ["server_error@fault.sendmock.test", chosenFault("server_error")],
    ["server_error+503@fault.sendmock.test", chosenFault("server_error", { status: 503 })],
    ["latency+2000@Fault.Sendmock.Test", chosenFault("latency", { delayMs: 2000 })],
    ["rate_limit+7@fault.sendmock.test", chosenFault("rate_limit", { retryAfterS: 7 })],
    ["disconnect@fault.sendmock.test", chosenFault("disconnect")],
  ])("reads the magic recipient %s", (to, expected) => {
    expect(faultFromRecipient(to)).toEqual(expected);
  });

  it("leaves ordinary addresses alone and refuses a magic address that names no fault", () => {
    expect(faultFromRecipient("server_error@example.com")).toBeUndefined();
    expect(() => faultFromRecipient("nothing@fault.sendmock.test")).toThrow(/unknown fault "nothing"/);
    expect(() => faultFromRecipient("disconnect+5@fault.sendmock.test")).toThrow(/delay_ms does not apply to the fault disconnect/);
  });
});
