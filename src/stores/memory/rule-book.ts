// Rules of any kind (faults, outcomes) in memory: compiled once when added, their uses counted down synchronously.

import {
  compileRule,
  copyRule,
  createDraw,
  DEFAULT_MAX_RULES,
  lazyKeyDigest,
  newRule,
  ruleMatches,
  type CompiledRule,
  type RuleBook,
  type RuleBookOptions,
  type RuleInput,
  type RuleKind,
  type RuleView,
} from "../../domain/rule-book.js";
import { tooManyRules } from "../../domain/rule-limit.js";

export function createMemoryRuleBook<I extends RuleInput, V extends RuleView>(kind: RuleKind<I, V>, options: RuleBookOptions<I>): RuleBook<I, V> {
  const now = options.now ?? (() => new Date());
  const draw = createDraw(options.seed);
  let rules: CompiledRule<V>[] = [];

  function restore(): void {
    rules = options.initialRules.map((input) => {
      const { view, apiKeyDigest } = newRule(kind, input, "config", now());
      return compileRule(view, apiKeyDigest);
    });
    draw.reseed();
  }
  restore();

  /** Counts one use down; synchronous, so two requests can never both take the last one. */
  function use(rule: CompiledRule<V>): void {
    if (rule.view.times === null) return;
    rule.view.times -= 1;
    if (rule.view.times <= 0) rules = rules.filter((candidate) => candidate !== rule);
  }

  return {
    add(input) {
      const maxRules = options.maxRules ?? DEFAULT_MAX_RULES;
      if (rules.length >= maxRules) return Promise.reject(tooManyRules(maxRules, `${kind.name} rules`));
      const { view, apiKeyDigest } = newRule(kind, input, "api", now());
      const rule = compileRule(view, apiKeyDigest);
      rules.push(rule);
      return Promise.resolve(copyRule(rule.view));
    },
    list() {
      return Promise.resolve(rules.map((rule) => copyRule(rule.view)));
    },
    count: () => Promise.resolve(rules.length),
    bytes: () => Promise.resolve(rules.reduce((sum, rule) => sum + rule.bytes, 0)),
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
    apply(target, accept) {
      const keyDigest = lazyKeyDigest(target);
      for (const rule of [...rules]) {
        if (!ruleMatches(rule, target, keyDigest) || !draw.wins(rule)) continue;
        use(rule);
        if (accept(copyRule(rule.view)) === "done") break;
      }
      return Promise.resolve();
    },
  };
}
