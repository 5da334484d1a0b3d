// What `sendmock check` reads of a service's own rate-limit fields: how long to wait once none is left, in each of the three forms.

import { describe, expect, it } from "vitest";
import { policyQuotas, rateLimitWaitMs } from "../../src/check/transport.js";

describe("rateLimitWaitMs", () => {
  const now = Date.parse("2026-11-29T10:00:00Z");

  it("waits for the reset once none is left, in the IETF field, RateLimit-* and X-RateLimit-*", () => {
    expect(rateLimitWaitMs({ ratelimit: '"default";r=0;t=5' }, now)).toBe(5000);
    expect(rateLimitWaitMs({ "ratelimit-remaining": "0", "ratelimit-reset": "2" }, now)).toBe(2000);
    expect(rateLimitWaitMs({ "x-ratelimit-remaining": "0", "x-ratelimit-reset": "1" }, now)).toBe(1000);
  });

  it("reads a reset past a billion as epoch seconds", () => {
    expect(rateLimitWaitMs({ "x-ratelimit-remaining": "0", "x-ratelimit-reset": String(now / 1000 + 3) }, now)).toBe(3000);
    expect(rateLimitWaitMs({ "x-ratelimit-remaining": "0", "x-ratelimit-reset": String(now / 1000 - 3) }, now)).toBe(0);
  });

  it("says nothing while some are left, or when the fields are missing or unreadable", () => {
    expect(rateLimitWaitMs({ ratelimit: '"default";r=3;t=5' }, now)).toBeUndefined();
    expect(rateLimitWaitMs({ "ratelimit-remaining": "0" }, now)).toBeUndefined();
    expect(rateLimitWaitMs({ "x-ratelimit-remaining": "none", "x-ratelimit-reset": "1" }, now)).toBeUndefined();
    expect(rateLimitWaitMs({}, now)).toBeUndefined();
  });
});

describe("policyQuotas", () => {
  it("reads the quota and window of each RateLimit-Policy, in the structured form and the earlier one", () => {
    expect(policyQuotas({ "ratelimit-policy": '"default";q=5;w=1' })).toEqual([{ requests: 5, perMs: 1000 }]);
    expect(policyQuotas({ "ratelimit-policy": "100;w=60" })).toEqual([{ requests: 100, perMs: 60_000 }]);
    expect(policyQuotas({ "ratelimit-policy": '"burst";q=10;w=1, "hour";q=1000;w=3600' })).toEqual([
      { requests: 10, perMs: 1000 },
      { requests: 1000, perMs: 3_600_000 },
    ]);
  });

  it("says nothing of a field it cannot read, a quota of 0, or a day's quota past what a run could keep count of", () => {
    expect(policyQuotas({})).toEqual([]);
    expect(policyQuotas({ "ratelimit-policy": '"default";w=1' })).toEqual([]);
    expect(policyQuotas({ "ratelimit-policy": '"default";q=0;w=1' })).toEqual([]);
    expect(policyQuotas({ "ratelimit-policy": '"default";q=5' })).toEqual([]);
    expect(policyQuotas({ "ratelimit-policy": '"day";q=1000000;w=86400' })).toEqual([]);
  });
});
