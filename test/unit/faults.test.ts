// Fault rules as written and faults as a request asks for them. What a fault plan does with
// its rules, whichever store keeps them, is in test/stores/faults-contract.ts.

import { describe, expect, it } from "vitest";
import { faultFromHeaders, faultFromRecipient } from "../../src/domain/fault-triggers.js";
import { checkFaultRule, chosenFault, type RespondLimits } from "../../src/domain/faults.js";
import type { FaultRuleInput } from "../../src/wire.js";

/** The defaults: body_limit 1mb, max_header_bytes 16384. */
const LIMITS: RespondLimits = { bodyBytes: 1024 * 1024, headerBytes: 16_384, depth: 100 };

describe("checking rules", () => {
  it.each([
    [{ fault: "rate_limit", status: 503 }, "status does not apply to the fault rate_limit (it takes retry_after_s)"],
    [{ fault: "invalid_recipient", delay_ms: 10 }, "delay_ms does not apply to the fault invalid_recipient"],
    [{ fault: "server_error", status: 501 }, "status of server_error must be one of 500, 502, 503, 504"],
    [{ fault: "server_error", delay_ms: 10 }, "delay_ms does not apply to the fault server_error (it takes status, retry_after_s)"],
    [{ fault: "respond" }, "respond needs a status: the HTTP status to answer with (200-599)"],
    [{ fault: "respond", status: 200, retry_after_s: 1 }, "retry_after_s does not apply to the fault respond (it takes status, headers, body)"],
    [{ fault: "rate_limit", body: "hi" }, "body does not apply to the fault rate_limit (it takes retry_after_s)"],
  ] as [FaultRuleInput, string][])("refuses %j", (rule, problem) => {
    expect(checkFaultRule(rule, LIMITS)).toBe(problem);
  });

  it("takes retry_after_s for server_error, as a real 503 may carry Retry-After", () => {
    expect(checkFaultRule({ fault: "server_error", status: 503, retry_after_s: 30 }, LIMITS)).toBeUndefined();
  });
});

describe("a respond rule's answer", () => {
  it("sends a string body as text and any other JSON as JSON, unless its headers name a Content-Type", () => {
    expect(chosenFault("respond", { status: 418, body: "I'm a teapot" }).response).toEqual({
      status: 418,
      headers: { "Content-Type": "text/plain; charset=utf-8" },
      body: "I'm a teapot",
    });
    expect(chosenFault("respond", { status: 200, body: { ok: true } }).response).toEqual({
      status: 200,
      headers: { "Content-Type": "application/json" },
      body: '{"ok":true}',
    });
    expect(chosenFault("respond", { status: 200, headers: { "content-type": "text/csv" }, body: "a,b" }).response?.headers).toEqual({
      "content-type": "text/csv",
    });
    expect(chosenFault("respond", { status: 204 }).response).toEqual({ status: 204, headers: {}, body: undefined });
  });

  it.each([
    ["a status below 200, which would leave the client waiting", { status: 101 }, /status of respond must be 200-599.*interim/],
    ["a null body", { status: 200, body: null }, /body must not be null/],
    ["a body with status 204", { status: 204, body: "x" }, /body is not allowed with status 204/],
    ["a body over body_limit", { status: 200, body: "x".repeat(1024 * 1024 + 1) }, /body is 1048577 bytes, more than body_limit \(1048576\)/],
    ["a header name with a space", { status: 200, headers: { "Retry After": "1" } }, /headers: "Retry After" is not a header name/],
    ["a header value with a line break", { status: 200, headers: { "X-A": "1\r\nSet-Cookie: a=b" } }, /headers\.X-A must be printable ASCII on one line/],
    ["a header value with a non-ASCII character", { status: 200, headers: { "X-A": "café" } }, /headers\.X-A must be printable ASCII/],
    ["a hop-by-hop header", { status: 200, headers: { "Transfer-Encoding": "chunked" } }, /headers\.Transfer-Encoding: a hop-by-hop header/],
    ["Connection", { status: 200, headers: { connection: "close" } }, /headers\.connection: a hop-by-hop header/],
    ["Content-Length", { status: 200, headers: { "Content-Length": "5" } }, /headers\.Content-Length: sendmock sets Content-Length/],
    ["one header twice", { status: 200, headers: { "Retry-After": "1", "retry-after": "2" } }, /headers: retry-after is given twice/],
    ["headers over max_header_bytes", { status: 200, headers: { "X-Big": "x".repeat(16_384) } }, /more than max_header_bytes \(16384\)/],
  ])("refuses %s", (_label, rule, says) => {
    expect(checkFaultRule({ fault: "respond", ...rule } as FaultRuleInput, LIMITS)).toMatch(says);
  });

  it("takes an answer the contract does not allow: that is what it is for", () => {
    expect(
      checkFaultRule({ fault: "respond", status: 429, headers: { "Retry-After": "Wed, 21 Oct 2026 07:28:00 GMT" }, body: "slow down" }, LIMITS),
    ).toBeUndefined();
  });
});

describe("faults a request asks for", () => {
  const noHeaders = { fault: undefined, status: undefined, delay: undefined, retryAfter: undefined };

  it("reads the header family", () => {
    expect(faultFromHeaders({ ...noHeaders, fault: "server_error", status: "504" })).toEqual(chosenFault("server_error", { status: 504 }));
    expect(faultFromHeaders({ ...noHeaders, fault: "timeout", delay: "250" })).toEqual(chosenFault("timeout", { delayMs: 250 }));
    expect(faultFromHeaders({ ...noHeaders, fault: "rate_limit", retryAfter: "30" })).toEqual(chosenFault("rate_limit", { retryAfterS: 30 }));
    expect(faultFromHeaders({ ...noHeaders, fault: "server_error", status: "503", retryAfter: "30" })).toEqual(
      chosenFault("server_error", { status: 503, retryAfterS: 30 }),
    );
    expect(faultFromHeaders({ ...noHeaders, status: "504" })).toBeUndefined();
  });

  it("refuses an unknown fault or a bad number in a header, naming the header", () => {
    expect(() => faultFromHeaders({ ...noHeaders, fault: "explode" })).toThrow(/X-Sendmock-Fault: unknown fault "explode"/);
    expect(() => faultFromHeaders({ ...noHeaders, fault: "server_error", status: "abc" })).toThrow(/X-Sendmock-Fault-Status must be a whole number/);
    expect(() => faultFromHeaders({ ...noHeaders, fault: "server_error", status: "418" })).toThrow(
      /X-Sendmock-Fault-Status of server_error must be one of 500, 502, 503, 504/,
    );
    expect(() => faultFromHeaders({ ...noHeaders, fault: "rate_limit", retryAfter: "-1" })).toThrow(
      /X-Sendmock-Fault-Retry-After must be a whole number of seconds, 0 to 86400, got "-1"/,
    );
    expect(() => faultFromHeaders({ ...noHeaders, fault: "rate_limit", retryAfter: "1.5" })).toThrow(/X-Sendmock-Fault-Retry-After must be a whole number/);
    expect(() => faultFromHeaders({ ...noHeaders, fault: "rate_limit", retryAfter: "99999999999999" })).toThrow(
      /X-Sendmock-Fault-Retry-After must be at most 86400/,
    );
    expect(() => faultFromHeaders({ ...noHeaders, fault: "latency", retryAfter: "5" })).toThrow(
      "X-Sendmock-Fault: X-Sendmock-Fault-Retry-After does not apply to the fault latency (it takes X-Sendmock-Fault-Delay)",
    );
    expect(() => faultFromHeaders({ ...noHeaders, fault: "rate_limit", status: "503" })).toThrow(
      "X-Sendmock-Fault: X-Sendmock-Fault-Status does not apply to the fault rate_limit (it takes X-Sendmock-Fault-Retry-After)",
    );
  });

  it("refuses respond by header: its status, headers and body need a rule", () => {
    expect(() => faultFromHeaders({ ...noHeaders, fault: "respond" })).toThrow(/respond cannot be asked for by a request.*POST \/_mock\/faults/);
    expect(() => faultFromRecipient("respond@fault.sendmock.test")).toThrow(/respond cannot be asked for by a request/);
  });

  it.each([
    ["server_error@fault.sendmock.test", chosenFault("server_error")],
    ["server_error+503@fault.sendmock.test", chosenFault("server_error", { status: 503 })],
    ["latency+2000@Fault.Sendmock.Test", chosenFault("latency", { delayMs: 2000 })],
    ["rate_limit+7@fault.sendmock.test", chosenFault("rate_limit", { retryAfterS: 7 })],
    ["server_error+503+30@fault.sendmock.test", chosenFault("server_error", { status: 503, retryAfterS: 30 })],
    ["disconnect@fault.sendmock.test", chosenFault("disconnect")],
  ])("reads the magic recipient %s", (to, expected) => {
    expect(faultFromRecipient(to)).toEqual(expected);
  });

  it("leaves ordinary addresses alone and refuses a magic address that names no fault", () => {
    expect(faultFromRecipient("server_error@example.com")).toBeUndefined();
    expect(() => faultFromRecipient("nothing@fault.sendmock.test")).toThrow(/unknown fault "nothing"/);
    expect(() => faultFromRecipient("disconnect+5@fault.sendmock.test")).toThrow(/disconnect takes no \+ part/);
    expect(() => faultFromRecipient("latency+5+6@fault.sendmock.test")).toThrow(/latency takes at most latency\+D/);
    expect(() => faultFromRecipient("server_error+503+30+1@fault.sendmock.test")).toThrow(/server_error takes at most server_error\+S\+R/);
    expect(() => faultFromRecipient("server_error+503+90000@fault.sendmock.test")).toThrow(/the Retry-After \(\+R\) must be at most 86400/);
  });
});
