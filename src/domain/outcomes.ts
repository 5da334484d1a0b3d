// What happens to a message after capture: from a magic recipient, then the outcome rules, then
// the default outcome. The rules are a rule book, matched as fault rules are.

import { OUTCOMES, type Outcome, type OutcomeRule, type OutcomeRuleInput } from "../wire.js";
import type { RuleBook, RuleKind, RuleTarget } from "./rule-book.js";
import { isSandboxRecipientDomain } from "./sandboxes.js";

export const OUTCOME_RECIPIENT_DOMAIN = "outcome.sendmock.test";

/** Outcome rules as a rule book keeps them. */
export const OUTCOME_RULES: RuleKind<OutcomeRuleInput, OutcomeRule> = {
  name: "outcome",
  idPrefix: "out_",
  view: (input, common) => ({
    id: common.id,
    outcome: input.outcome,
    match: common.match,
    api_key_hint: common.api_key_hint,
    times: common.times,
    probability: common.probability,
    source: common.source,
    created_at: common.created_at,
  }),
};

export type OutcomeBook = RuleBook<OutcomeRuleInput, OutcomeRule>;

/** What tests and the admin API may do with the outcome rules. */
export interface OutcomeControl {
  add(input: OutcomeRuleInput): Promise<OutcomeRule>;
  list(): Promise<OutcomeRule[]>;
  /** How many rules it holds, without copying them. */
  count(): Promise<number>;
  remove(id: string): Promise<boolean>;
  clear(): Promise<void>;
}

/** The outcome rules' control over `book`; `add` takes a rule of the shape admin.yaml's OutcomeRuleInput gives, checked by whoever took it in. */
export function createOutcomeControl(book: OutcomeBook): OutcomeControl {
  return {
    add: (input) => book.add(input),
    list: () => book.list(),
    count: () => book.count(),
    remove: (id) => book.remove(id),
    clear: () => book.clear(),
  };
}

function isOutcome(value: string): value is Outcome {
  return (OUTCOMES as readonly string[]).includes(value);
}

/**
 * `OUTCOME@outcome.sendmock.test` or `OUTCOME+anything@outcome.sendmock.test`, as the test
 * addresses of Resend and SES: the outcome it names, `unknown` for a name that is no outcome,
 * undefined for any other address. The same local part at a sandbox's address
 * (`OUTCOME+anything@NAME.sandbox.sendmock.test`) is that outcome in that sandbox; any other
 * local part there is an ordinary recipient.
 */
export function outcomeFromRecipient(to: string): Outcome | "unknown" | undefined {
  const at = to.lastIndexOf("@");
  if (at < 0) return undefined;
  const domain = to.slice(at + 1).toLowerCase();
  const [name = ""] = to.slice(0, at).toLowerCase().split("+", 1);
  if (domain === OUTCOME_RECIPIENT_DOMAIN) return isOutcome(name) ? name : "unknown";
  return isSandboxRecipientDomain(domain) && isOutcome(name) ? name : undefined;
}

/**
 * The outcome of a message: its recipient's, else the first rule that applies, else
 * `fallback`. A magic recipient naming no outcome is not refused (the send itself is valid):
 * the message takes the rules' or the default outcome and says why in its warnings.
 */
export async function decideOutcome(book: OutcomeBook, target: RuleTarget, fallback: Outcome): Promise<{ outcome: Outcome; warning?: string }> {
  const fromRecipient = outcomeFromRecipient(target.to);
  if (fromRecipient !== undefined && fromRecipient !== "unknown") return { outcome: fromRecipient };
  let chosen: Outcome = fallback;
  await book.apply(target, (rule) => {
    chosen = rule.outcome;
    return "done";
  });
  if (fromRecipient === "unknown") {
    return { outcome: chosen, warning: `unknown_outcome: ${target.to} names no outcome (one of ${OUTCOMES.join(", ")}); the message goes ${chosen}` };
  }
  return { outcome: chosen };
}
