// The rules a config lists (fault rules, outcome rules, webhooks) held to their schemas in
// admin.yaml, one validator each from the contract engine: the components POST /_mock and the
// library's handle hold a rule to, by the operation's check.

import { componentPointer } from "./document-pointers.js";
import { validatorAt } from "./engine.js";
import { ADMIN_CONTRACT, readContractNow } from "./load.js";
import type { Violation } from "../domain/violation.js";
import { checkWith } from "./schema-check.js";

/** Each list of rules a config may hold, with the component of admin.yaml its items fit. */
export const RULE_INPUT_COMPONENTS = { faults: "FaultRuleInput", outcome_rules: "OutcomeRuleInput", webhooks: "WebhookInput" } as const;

type RuleList = keyof typeof RULE_INPUT_COMPONENTS;

const RULE_LISTS = Object.keys(RULE_INPUT_COMPONENTS) as RuleList[];

/** Loaded (built ahead) or compiled at the first rule of each kind: a mock that is given none never compiles its check. */
const checks = Object.fromEntries(
  RULE_LISTS.map((list) => [list, checkWith(() => validatorAt(readContractNow(ADMIN_CONTRACT), componentPointer(RULE_INPUT_COMPONENTS[list]), "input"))]),
) as Record<RuleList, (value: unknown) => Violation | undefined>;

/** The first rule of a config's lists that breaks its schema, with its path from the config's root (`faults[2].match.to`). */
export function listedRuleProblem(settings: Readonly<Record<string, unknown>>): Violation | undefined {
  for (const list of RULE_LISTS) {
    const rules = settings[list];
    if (!Array.isArray(rules)) continue;
    for (const [index, rule] of rules.entries()) {
      const problem = checks[list](rule);
      if (problem) return { ...problem, path: `/${list}/${index}${problem.path}` };
    }
  }
  return undefined;
}
