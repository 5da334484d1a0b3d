// Fault rules in memory: compiled once when added, their uses counted down synchronously.

import {
  applyOneOffs,
  compileRule,
  copyRule,
  createDraw,
  DEFAULT_MAX_RULES,
  newRule,
  ruleMatches,
  type CompiledRule,
  type FaultPlan,
  type FaultPlanOptions,
} from "../../domain/faults.js";
import { sha256 } from "../../domain/digest.js";
import { tooManyRules } from "../../domain/rule-limit.js";

export function createMemoryFaultPlan(options: FaultPlanOptions): FaultPlan {
  const now = options.now ?? (() => new Date());
  const draw = createDraw(options.seed);
  let rules: CompiledRule[] = [];

  function restore(): void {
    rules = options.initialRules.map((input) => {
      const { view, apiKeyDigest } = newRule(input, "config", now());
      return compileRule(view, apiKeyDigest);
    });
    draw.reseed();
  }
  restore();

  /** Counts one use down; synchronous, so two requests can never both take the last one. */
  function use(rule: CompiledRule): void {
    if (rule.view.times === null) return;
    rule.view.times -= 1;
    if (rule.view.times <= 0) rules = rules.filter((candidate) => candidate !== rule);
  }

  return {
    add(input) {
      const maxRules = options.maxRules ?? DEFAULT_MAX_RULES;
      if (rules.length >= maxRules) return Promise.reject(tooManyRules(maxRules, "fault"));
      const { view, apiKeyDigest } = newRule(input, "api", now());
      const rule = compileRule(view, apiKeyDigest);
      rules.push(rule);
      return Promise.resolve(copyRule(rule.view));
    },
    list() {
      return Promise.resolve(rules.map((rule) => copyRule(rule.view)));
    },
    remove(id) {
      const before = rules.length;
      rules = rules.filter((rule) => rule.view.id !== id);
      return Promise.resolve(rules.length < before);
    },
    clear() {
      rules = [];
      return Promise.resolve();
    },
    reset() {
      restore();
      return Promise.resolve();
    },
    decide(target, oneOffs) {
      const outcome = applyOneOffs(oneOffs);
      if (outcome.fault) return Promise.resolve(outcome);
      let { latencyMs } = outcome;
      let keyDigest: string | undefined;
      const lazyDigest = (): string => (keyDigest ??= sha256(target.apiKey, "hex"));
      for (const rule of [...rules]) {
        if (!ruleMatches(rule, target, lazyDigest) || !draw.wins(rule)) continue;
        use(rule);
        if (rule.chosen.kind !== "latency") return Promise.resolve({ latencyMs, fault: rule.chosen });
        latencyMs += rule.chosen.delayMs;
      }
      return Promise.resolve({ latencyMs, fault: undefined });
    },
  };
}
