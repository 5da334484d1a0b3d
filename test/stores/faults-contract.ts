// What every fault plan promises, whichever store keeps the rules: rules tried in order,
// globs and key digests, times counted down, seeded probability, latency that composes, and
// the one-off faults of a request before any rule.

import { describe, expect, it } from "vitest";
import { chosenFault, type FaultPlan, type FaultPlanOptions, type FaultTarget } from "../../src/domain/faults.js";
import type { FaultRuleInput } from "../../src/wire.js";

export type MakeFaultPlan = (options: FaultPlanOptions) => Promise<FaultPlan>;

export const aTarget: FaultTarget = { to: "ada@example.com", templateId: "welcome", apiKey: "key-aaaa-1111" };

/** The kind of fault each of `requests` requests gets, one after the other. */
export async function kindsOver(plan: FaultPlan, requests: number, on: FaultTarget = aTarget): Promise<(string | undefined)[]> {
  const kinds = [];
  for (let request = 0; request < requests; request += 1) kinds.push((await plan.decide(on, [])).fault?.kind);
  return kinds;
}

/** @param makeFaultPlan a new plan on a store of its own on every call */
export function describeFaultPlanContract(name: string, makeFaultPlan: MakeFaultPlan): void {
  const aPlan = (initialRules: FaultRuleInput[] = [], seed: number | null = 7): Promise<FaultPlan> => makeFaultPlan({ initialRules, seed });

  describe(name, () => {
    describe("keeping rules", () => {
      it("refuses a rule past max_rules with 400 invalid_request, and takes one again after a removal", async () => {
        const plan = await makeFaultPlan({ initialRules: [{ fault: "latency" }], seed: 7, maxRules: 2 });
        const added = await plan.add({ fault: "server_error" });

        await expect(plan.add({ fault: "rate_limit" })).rejects.toMatchObject({
          code: "invalid_request",
          message: expect.stringContaining("at most 2 (max_rules)") as unknown,
        });
        expect(await plan.list()).toHaveLength(2);
        await plan.remove(added.id);
        await expect(plan.add({ fault: "rate_limit" })).resolves.toMatchObject({ fault: "rate_limit" });
      });

      it("counts its rules and their size as JSON, the config's included, without listing them", async () => {
        const plan = await aPlan([{ fault: "latency" }]);
        const small = await plan.count();
        const smallBytes = await plan.bytes();
        expect(small).toBe(1);
        expect(smallBytes).toBeGreaterThan(0);

        const big = await plan.add({ fault: "respond", status: 200, body: "x".repeat(20_000) });
        expect(await plan.count()).toBe(2);
        // The body and the rule's other members: more than the body, far less than twice it.
        expect(await plan.bytes()).toBeGreaterThan(smallBytes + 20_000);
        expect(await plan.bytes()).toBeLessThan(smallBytes + 21_000);

        await plan.remove(big.id);
        expect(await plan.bytes()).toBe(smallBytes);
      });

      it("starts with the config's rules and lists added rules after them, in order", async () => {
        const plan = await aPlan([{ fault: "server_error", match: { to: "*@example.com" } }]);

        const added = await plan.add({ fault: "rate_limit", retry_after_s: 5, times: 2 });
        const rules = await plan.list();

        expect(rules.map((rule) => [rule.fault, rule.source])).toEqual([
          ["server_error", "config"],
          ["rate_limit", "api"],
        ]);
        expect(rules[1]).toEqual(added);
      });

      it("answers an added rule with its id, its defaults filled in and the time from the plan's clock", async () => {
        const createdAt = new Date("2025-03-14T09:00:00.000Z");
        const plan = await makeFaultPlan({ initialRules: [], seed: 7, now: () => createdAt });

        const rule = await plan.add({ fault: "timeout" });

        expect(rule).toEqual({
          id: expect.stringMatching(/^flt_/) as unknown,
          fault: "timeout",
          match: { to: null, template_id: null },
          api_key_hint: null,
          times: null,
          probability: 1,
          status: null,
          retry_after_s: null,
          delay_ms: null,
          headers: null,
          body: null,
          source: "api",
          created_at: createdAt.toISOString(),
        });
      });

      it("keeps a respond rule's headers and body as given, and answers them with the fault", async () => {
        const body = { success: false, error: { code: "quota_exceeded", message: "Quota used up" } };
        const plan = await aPlan([{ fault: "respond", status: 403, headers: { "X-Request-Id": "abc" }, body, match: { to: "*@example.com" } }]);

        const added = await plan.add({ fault: "respond", status: 200, body: "plain text" });

        expect((await plan.list()).map((rule) => [rule.headers, rule.body])).toEqual([
          [{ "X-Request-Id": "abc" }, body],
          [{}, "plain text"],
        ]);
        expect(added).toMatchObject({ fault: "respond", status: 200, headers: {}, body: "plain text" });
        expect(await plan.decide(aTarget, [])).toEqual({
          latencyMs: 0,
          fault: chosenFault("respond", { status: 403, headers: { "X-Request-Id": "abc" }, body }),
        });
      });

      it("removes a rule by its id, and says false for an id it does not have", async () => {
        const plan = await aPlan();
        const gone = await plan.add({ fault: "server_error" });
        const kept = await plan.add({ fault: "rate_limit" });

        expect(await plan.remove(gone.id)).toBe(true);
        expect(await plan.remove(gone.id)).toBe(false);
        expect(await plan.list()).toEqual([kept]);
        expect((await plan.decide(aTarget, [])).fault?.kind).toBe("rate_limit");
      });

      it("clears every rule, the config's too, until a reset brings the config's back", async () => {
        const plan = await aPlan([{ fault: "disconnect" }]);
        await plan.add({ fault: "server_error" });

        await plan.clear();
        expect(await plan.list()).toEqual([]);
        expect(await plan.decide(aTarget, [])).toEqual({ latencyMs: 0, fault: undefined });

        await plan.reset();
        expect((await plan.list()).map((rule) => [rule.fault, rule.source])).toEqual([["disconnect", "config"]]);
      });

      it("resets to the config's rules with their times restored, dropping added rules", async () => {
        const plan = await aPlan([{ fault: "server_error", times: 2 }]);
        await plan.decide(aTarget, []);
        await plan.add({ fault: "rate_limit" });

        await plan.reset();

        const rules = await plan.list();
        expect(rules.map((rule) => [rule.fault, rule.source, rule.times])).toEqual([["server_error", "config", 2]]);
      });

      it("keeps only a hint of match.api_key", async () => {
        const plan = await aPlan();
        const rule = await plan.add({ fault: "disconnect", match: { api_key: "secret-key-123456789" } });
        expect(rule.api_key_hint).toBe("6789");
        expect(JSON.stringify(await plan.list())).not.toContain("secret-key-123456789");
      });

      it("gives each reader its own copy of the rules", async () => {
        const plan = await aPlan();
        await plan.add({ fault: "server_error", match: { to: "ada@example.com" }, times: 1 });

        const [read] = await plan.list();
        if (!read) throw new Error("no rule");
        read.match.to = "*";
        read.times = 99;

        expect(await plan.list()).toMatchObject([{ match: { to: "ada@example.com" }, times: 1 }]);
      });
    });

    describe("choosing a fault", () => {
      it("applies the first matching rule, in the order added", async () => {
        const plan = await aPlan();
        await plan.add({ fault: "server_error", match: { to: "*@other.test" } });
        await plan.add({ fault: "rate_limit" });
        await plan.add({ fault: "disconnect" });
        expect((await plan.decide(aTarget, [])).fault?.kind).toBe("rate_limit");
      });

      it("answers the rule's parameters with the fault, and the defaults where it names none", async () => {
        const plan = await aPlan([
          { fault: "rate_limit", retry_after_s: 7, times: 1 },
          { fault: "server_error", status: 503, retry_after_s: 30, times: 1 },
          { fault: "timeout" },
        ]);

        expect(await plan.decide(aTarget, [])).toEqual({ latencyMs: 0, fault: chosenFault("rate_limit", { retryAfterS: 7 }) });
        expect(await plan.decide(aTarget, [])).toEqual({ latencyMs: 0, fault: chosenFault("server_error", { status: 503, retryAfterS: 30 }) });
        expect(await plan.decide(aTarget, [])).toEqual({ latencyMs: 0, fault: chosenFault("timeout") });
      });

      it("matches to and template_id as case-insensitive globs and api_key exactly", async () => {
        const plan = await aPlan([{ fault: "server_error", match: { to: "*@EXAMPLE.com", template_id: "wel*", api_key: "key-aaaa-1111" } }]);
        expect((await plan.decide(aTarget, [])).fault?.kind).toBe("server_error");
        expect((await plan.decide({ ...aTarget, apiKey: "key-bbbb-2222" }, [])).fault).toBeUndefined();
        expect((await plan.decide({ ...aTarget, apiKey: "key-aaaa-11112" }, [])).fault).toBeUndefined();
        expect((await plan.decide({ ...aTarget, templateId: "order-receipt" }, [])).fault).toBeUndefined();
        expect((await plan.decide({ ...aTarget, to: "ada@example.org" }, [])).fault).toBeUndefined();
      });

      it("matches an added rule's api_key too, though it keeps only its digest", async () => {
        const plan = await aPlan();
        await plan.add({ fault: "disconnect", match: { api_key: "key-bbbb-2222" } });

        expect((await plan.decide(aTarget, [])).fault).toBeUndefined();
        expect((await plan.decide({ ...aTarget, apiKey: "key-bbbb-2222" }, [])).fault?.kind).toBe("disconnect");
      });

      it("counts times down, showing what is left, and drops the rule after its last use", async () => {
        const plan = await aPlan([{ fault: "server_error", times: 2 }]);

        expect(await kindsOver(plan, 1)).toEqual(["server_error"]);
        expect((await plan.list()).map((rule) => rule.times)).toEqual([1]);
        expect(await kindsOver(plan, 2)).toEqual(["server_error", undefined]);
        expect(await plan.list()).toEqual([]);
      });

      it("counts down only the rules that applied", async () => {
        const plan = await aPlan([
          { fault: "server_error", match: { to: "grace@example.com" }, times: 1 },
          { fault: "rate_limit", times: 1 },
        ]);

        expect(await kindsOver(plan, 2)).toEqual(["rate_limit", undefined]);
        expect((await plan.list()).map((rule) => [rule.fault, rule.times])).toEqual([["server_error", 1]]);
      });

      it("adds up latency rules and goes on to the next rule", async () => {
        const plan = await aPlan([
          { fault: "latency", delay_ms: 100 },
          { fault: "latency", delay_ms: 50, times: 1 },
          { fault: "server_error", status: 503 },
        ]);
        expect(await plan.decide(aTarget, [])).toEqual({ latencyMs: 150, fault: chosenFault("server_error", { status: 503 }) });
        expect(await plan.decide(aTarget, [])).toEqual({ latencyMs: 100, fault: chosenFault("server_error", { status: 503 }) });
      });

      it("answers latency alone when no other rule applies", async () => {
        const plan = await aPlan([{ fault: "latency" }]);
        expect(await plan.decide(aTarget, [])).toEqual({ latencyMs: 1000, fault: undefined });
      });

      it("tries the one-off faults of a request before the rules, leaving the rules untouched", async () => {
        const plan = await aPlan([{ fault: "server_error", times: 1 }]);
        const outcome = await plan.decide(aTarget, [chosenFault("latency", { delayMs: 20 }), chosenFault("rate_limit", { retryAfterS: 3 })]);
        expect(outcome).toEqual({ latencyMs: 20, fault: chosenFault("rate_limit", { retryAfterS: 3 }) });
        expect((await plan.list())[0]?.times).toBe(1);
      });

      it("adds a one-off latency to the rules' latency and goes on to the rules", async () => {
        const plan = await aPlan([{ fault: "latency", delay_ms: 30 }, { fault: "disconnect" }]);
        const outcome = await plan.decide(aTarget, [chosenFault("latency", { delayMs: 20 })]);
        expect(outcome).toEqual({ latencyMs: 50, fault: chosenFault("disconnect") });
      });
    });

    describe("probability and seed", () => {
      const halfTheTime: FaultRuleInput[] = [{ fault: "server_error", probability: 0.5 }];

      it("gives the same outcomes for the same seed and the same requests", async () => {
        const first = await kindsOver(await aPlan(halfTheTime, 42), 50);
        const second = await kindsOver(await aPlan(halfTheTime, 42), 50);
        expect(first).toEqual(second);
        expect(new Set(first)).toEqual(new Set(["server_error", undefined]));
      });

      it("gives other outcomes for another seed", async () => {
        expect(await kindsOver(await aPlan(halfTheTime, 1), 50)).not.toEqual(await kindsOver(await aPlan(halfTheTime, 2), 50));
      });

      it("draws only for rules that ask for a probability, so a certain rule before them shifts nothing", async () => {
        const alone = await kindsOver(await aPlan(halfTheTime, 42), 30);
        const afterALatency = await kindsOver(await aPlan([{ fault: "latency", delay_ms: 5 }, ...halfTheTime], 42), 30);
        expect(afterALatency).toEqual(alone);
      });

      it("starts the sequence again on reset, with the config's rules back", async () => {
        const plan = await aPlan([...halfTheTime, { fault: "disconnect", times: 1 }], 42);
        const before = await kindsOver(plan, 20);
        await plan.add({ fault: "rate_limit" });
        await plan.reset();
        expect(await kindsOver(plan, 20)).toEqual(before);
        expect((await plan.list()).map((rule) => rule.source)).toEqual(["config"]);
      });

      it("never applies probability 0 and always applies probability 1", async () => {
        expect(await kindsOver(await aPlan([{ fault: "server_error", probability: 0 }]), 20)).toEqual(Array<undefined>(20).fill(undefined));
        expect(new Set(await kindsOver(await aPlan([{ fault: "server_error", probability: 1 }]), 20))).toEqual(new Set(["server_error"]));
      });
    });
  });
}
