// Bad fault input: a rule the admin API, the library or the faults option refuses, and a send whose fault header or magic recipient is wrong.

import { describe, expect, it } from "vitest";
import { ApiError, ConfigError } from "../../src/index.js";
import { expectError } from "../support/error-responses.js";
import { capturedCount, lastJournalEntry, listFaults, postFault, send, type SendCall } from "../support/fault-calls.js";
import { aMock, sharedMockBuiltBy } from "../support/helpers.js";

describe("bad fault input", () => {
  const theMock = sharedMockBuiltBy(() => aMock());

  it.each([
    { problem: "an unknown kind", rule: { fault: "explode" }, says: /fault.*(invalid_recipient|one of)/ },
    { problem: "no fault at all", rule: { times: 1 }, says: /fault.*required/ },
    { problem: "status: 418", rule: { fault: "server_error", status: 418 }, says: /status.*500, 502, 503, 504/ },
    { problem: "a status on rate_limit", rule: { fault: "rate_limit", status: 503 }, says: /status does not apply to the fault rate_limit/ },
    {
      problem: "delay_ms on invalid_recipient",
      rule: { fault: "invalid_recipient", delay_ms: 100 },
      says: /delay_ms does not apply to the fault invalid_recipient/,
    },
    { problem: "retry_after_s on latency", rule: { fault: "latency", retry_after_s: 2 }, says: /retry_after_s does not apply to the fault latency/ },
    { problem: "respond without a status", rule: { fault: "respond", body: "hi" }, says: /respond needs a status/ },
    { problem: "respond with status 100", rule: { fault: "respond", status: 100 }, says: /status of respond must be 200-599/ },
    { problem: "respond with status 600", rule: { fault: "respond", status: 600 }, says: /status/ },
    { problem: "respond with a status that is not an integer", rule: { fault: "respond", status: "429" }, says: /status/ },
    { problem: "respond with a null body", rule: { fault: "respond", status: 200, body: null }, says: /body must not be null/ },
    { problem: "respond with a body and status 204", rule: { fault: "respond", status: 204, body: "x" }, says: /body is not allowed with status 204/ },
    { problem: "respond with a header value that is not a string", rule: { fault: "respond", status: 200, headers: { "Retry-After": 5 } }, says: /headers/ },
    {
      problem: "respond with a line break in a header value",
      rule: { fault: "respond", status: 200, headers: { "X-Note": "a\r\nSet-Cookie: b=c" } },
      says: /headers\.X-Note must be printable ASCII on one line/,
    },
    { problem: "respond with Content-Length", rule: { fault: "respond", status: 200, headers: { "Content-Length": "3" } }, says: /headers\.Content-Length/ },
    { problem: "respond with Transfer-Encoding", rule: { fault: "respond", status: 200, headers: { "Transfer-Encoding": "chunked" } }, says: /hop-by-hop/ },
    {
      problem: "respond with a bad header name",
      rule: { fault: "respond", status: 200, headers: { "Bad Name": "x" } },
      says: /"Bad Name" is not a header name/,
    },
    { problem: "headers on server_error", rule: { fault: "server_error", headers: { "X-A": "b" } }, says: /headers does not apply to the fault server_error/ },
    { problem: "an unknown field", rule: { fault: "latency", colour: "red" }, says: /colour/ },
    { problem: "an unknown match field", rule: { fault: "latency", match: { from: "*@example.com" } }, says: /from/ },
    { problem: "probability: 2", rule: { fault: "server_error", probability: 2 }, says: /probability/ },
    { problem: "times: 0", rule: { fault: "server_error", times: 0 }, says: /times/ },
    { problem: "delay_ms over 600000", rule: { fault: "latency", delay_ms: 600_001 }, says: /delay_ms/ },
    { problem: "a glob over 1024 characters", rule: { fault: "server_error", match: { to: `${"a".repeat(1025)}*` } }, says: /1024/ },
    { problem: "a template glob of 70,000 characters", rule: { fault: "server_error", match: { template_id: "x".repeat(70_000) } }, says: /1024/ },
    { problem: "retry_after_s over a day", rule: { fault: "rate_limit", retry_after_s: 86_401 }, says: /retry_after_s/ },
  ])("POST /_mock/faults with $problem answers 400 invalid_request saying what is wrong, and adds nothing", async ({ rule, says }) => {
    const mock = theMock();

    const response = await postFault(mock, rule);

    expect(expectError(response, { status: 400, code: "invalid_request" })).toMatch(says);
    expect(await listFaults(mock)).toEqual([]);
  });

  it.each<{ problem: string; call: SendCall; says: RegExp; path: string | string[] }>([
    { problem: "X-Sendmock-Fault: explode", call: { headers: { "X-Sendmock-Fault": "explode" } }, says: /explode/, path: "/headers/x-sendmock-fault" },
    {
      problem: "X-Sendmock-Fault-Status: abc",
      call: { headers: { "X-Sendmock-Fault": "server_error", "X-Sendmock-Fault-Status": "abc" } },
      says: /X-Sendmock-Fault-Status.*whole number/,
      path: "/headers/x-sendmock-fault-status",
    },
    {
      problem: "X-Sendmock-Fault-Status: 418",
      call: { headers: { "X-Sendmock-Fault": "server_error", "X-Sendmock-Fault-Status": "418" } },
      says: /X-Sendmock-Fault-Status of server_error must be one of 500, 502, 503, 504/,
      path: "/headers/x-sendmock-fault-status",
    },
    {
      problem: "X-Sendmock-Fault-Delay on a rate_limit",
      call: { headers: { "X-Sendmock-Fault": "rate_limit", "X-Sendmock-Fault-Delay": "100" } },
      says: /X-Sendmock-Fault-Delay does not apply to the fault rate_limit \(it takes X-Sendmock-Fault-Retry-After\)/,
      path: "/headers/x-sendmock-fault-delay",
    },
    {
      problem: "X-Sendmock-Fault-Retry-After: -1",
      call: { headers: { "X-Sendmock-Fault": "rate_limit", "X-Sendmock-Fault-Retry-After": "-1" } },
      says: /X-Sendmock-Fault-Retry-After must be a whole number of seconds, 0 to 86400, got "-1"/,
      path: "/headers/x-sendmock-fault-retry-after",
    },
    {
      problem: "X-Sendmock-Fault-Retry-After: 2.5",
      call: { headers: { "X-Sendmock-Fault": "server_error", "X-Sendmock-Fault-Retry-After": "2.5" } },
      says: /X-Sendmock-Fault-Retry-After must be a whole number/,
      path: "/headers/x-sendmock-fault-retry-after",
    },
    {
      problem: "X-Sendmock-Fault-Retry-After: soon",
      call: { headers: { "X-Sendmock-Fault": "rate_limit", "X-Sendmock-Fault-Retry-After": "soon" } },
      says: /X-Sendmock-Fault-Retry-After must be a whole number/,
      path: "/headers/x-sendmock-fault-retry-after",
    },
    {
      problem: "X-Sendmock-Fault-Retry-After over a day",
      call: { headers: { "X-Sendmock-Fault": "rate_limit", "X-Sendmock-Fault-Retry-After": "99999999999999999999" } },
      says: /X-Sendmock-Fault-Retry-After must be at most 86400/,
      path: "/headers/x-sendmock-fault-retry-after",
    },
    {
      problem: "X-Sendmock-Fault-Retry-After on a latency",
      call: { headers: { "X-Sendmock-Fault": "latency", "X-Sendmock-Fault-Retry-After": "5" } },
      says: /X-Sendmock-Fault-Retry-After does not apply to the fault latency/,
      path: "/headers/x-sendmock-fault-retry-after",
    },
    {
      problem: "X-Sendmock-Fault: respond",
      call: { headers: { "X-Sendmock-Fault": "respond" } },
      says: /respond cannot be asked for by a request/,
      path: "/headers/x-sendmock-fault",
    },
    {
      problem: "the magic recipient respond@fault.sendmock.test",
      call: { with: { to: "respond@fault.sendmock.test" } },
      says: /respond cannot be asked for by a request/,
      path: "/to",
    },
    {
      problem: "the magic recipient server_error+503+30+1@fault.sendmock.test",
      call: { with: { to: "server_error+503+30+1@fault.sendmock.test" } },
      says: /server_error takes at most server_error\+S\+R/,
      path: "/to",
    },
    {
      problem: "the magic recipient rate_limit+90000@fault.sendmock.test",
      call: { with: { to: "rate_limit+90000@fault.sendmock.test" } },
      says: /the Retry-After \(\+R\) must be at most 86400/,
      path: "/to",
    },
    {
      problem: "X-Sendmock-Fault-Delay over the rules' maximum of 600000",
      call: { headers: { "X-Sendmock-Fault": "latency", "X-Sendmock-Fault-Delay": "600001" } },
      says: /600000/,
      path: ["/headers/x-sendmock-fault-delay", "/headers/x-sendmock-fault"],
    },
    { problem: "the magic recipient nothing@fault.sendmock.test", call: { with: { to: "nothing@fault.sendmock.test" } }, says: /nothing/, path: "/to" },
    {
      problem: "the magic recipient server_error+418@fault.sendmock.test",
      call: { with: { to: "server_error+418@fault.sendmock.test" } },
      says: /500, 502, 503, 504/,
      path: "/to",
    },
    {
      problem: "the magic recipient latency+600001@fault.sendmock.test",
      call: { with: { to: "latency+600001@fault.sendmock.test" } },
      says: /600000/,
      path: "/to",
    },
    {
      problem: "the magic recipient latency+soon@fault.sendmock.test",
      call: { with: { to: "latency+soon@fault.sendmock.test" } },
      says: /whole number/,
      path: "/to",
    },
  ])("a send with $problem answers 400 invalid_request saying what is wrong, and is not faulted", async ({ call, says, path }) => {
    const mock = theMock();

    // A bad delay that slipped through would hold the send for minutes, past the test's own timeout.
    const response = await send(mock, call);

    expect(expectError(response, { status: 400, code: "invalid_request" })).toMatch(says);
    expect(await capturedCount(mock)).toBe(0);
    const entry = await lastJournalEntry(mock);
    expect(entry).toMatchObject({ status: 400, error_code: "invalid_request", fault: null });
    expect(entry?.violations).toHaveLength(1);
    expect([path].flat()).toContain(entry?.violations[0]?.path);
  });

  it("mock.faults.add rejects a rule the admin API would refuse, with an ApiError saying why", async () => {
    const mock = theMock();

    await expect(mock.faults.add({ fault: "server_error", status: 418 } as never)).rejects.toThrow(ApiError);
    await expect(mock.faults.add({ fault: "explode" } as never)).rejects.toThrow(/fault/);
    await expect(mock.faults.add({ fault: "invalid_recipient", delay_ms: 5 })).rejects.toThrow(/delay_ms does not apply/);
    expect(await mock.faults.list()).toEqual([]);
  });

  it.each([
    { problem: "status: 418", rule: { fault: "server_error", status: 418 }, says: /faults\[1\].*status/ },
    { problem: "an unknown kind", rule: { fault: "explode" }, says: /faults\[1\].*fault/ },
    { problem: "retry_after_s on latency", rule: { fault: "latency", retry_after_s: 1 }, says: /faults\[1\].*retry_after_s does not apply/ },
    { problem: "a respond without a status", rule: { fault: "respond", body: "x" }, says: /faults\[1\]: respond needs a status/ },
    {
      problem: "a respond with a line break in a header",
      rule: { fault: "respond", status: 200, headers: { "X-A": "1\nX-B: 2" } },
      says: /faults\[1\]: headers\.X-A must be printable ASCII on one line/,
    },
  ])("the faults option with $problem makes createSendMock reject with a ConfigError naming the rule", async ({ rule, says }) => {
    const building = aMock({ faults: [{ fault: "rate_limit" }, rule] as never });

    await expect(building).rejects.toThrow(ConfigError);
    await expect(building).rejects.toThrow(says);
  });
});
