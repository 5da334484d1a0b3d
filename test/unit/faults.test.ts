// Fault rules as written and faults as a request asks for them. What a fault plan does with
// its rules, whichever store keeps them, is in test/stores/faults-contract.ts.

import { describe, expect, it } from "vitest";
import { faultFromHeaders, faultFromRecipient } from "../../src/domain/fault-triggers.js";
import { checkFaultRule, chosenFault, validFaultRule } from "../../src/domain/faults.js";
import { ApiError } from "../../src/errors.js";
import type { FaultRuleInput } from "../../src/wire.js";

describe("checking rules", () => {
  it.each([
    [{ fault: "rate_limit", status: 503 }, "status does not apply to the fault rate_limit (it takes retry_after_s)"],
    [{ fault: "invalid_recipient", delay_ms: 10 }, "delay_ms does not apply to the fault invalid_recipient"],
    [{ fault: "server_error", status: 501 }, "status of server_error must be one of 500, 502, 503, 504"],
  ] as [FaultRuleInput, string][])("refuses %j", (rule, problem) => {
    expect(checkFaultRule(rule)).toBe(problem);
  });

  it("refuses a rule of the wrong shape with an invalid_request naming the field", () => {
    expect(() => validFaultRule({ fault: "server_error", times: 0 })).toThrow(/Invalid fault rule: times must be at least 1/);
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
