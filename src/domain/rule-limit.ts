// The cap on how many rules of one kind (fault rules, outcome rules, webhooks) a mock holds, every sandbox together.

import { DomainFailure } from "./failure.js";

/**
 * The `invalid_request` refusal of a rule past `maxRules`. Every send is matched against every
 * rule: 50,000 rules cost 128 ms per send and 800 MB.
 */
export function tooManyRules(maxRules: number, kind: string): DomainFailure {
  return new DomainFailure("invalid_request", `Too many ${kind}: at most ${maxRules} (max_rules); remove some first`);
}

/** A control that adds things of one kind (fault rules, outcome rules, webhooks), as the global bound sees it. */
interface Adding<Input, Added> {
  add(input: Input): Promise<Added>;
}

/**
 * `control` whose `add` is refused once every sandbox together holds `maxRules` of its kind:
 * max_rules bounds the mock, not each sandbox, so that 24 sandboxes of 1000 rules of 90 KB each
 * can no longer hold 2.4 GB. `total` counts them all, read at each add (adds are rare; a send
 * never reads it).
 */
export function withGlobalRuleLimit<Control extends Adding<Input, Added>, Input, Added>(
  control: Control,
  limit: { maxRules: number; kind: string; total: () => Promise<number>; bytes?: RuleBytesLimit },
): Control {
  return {
    ...control,
    async add(input: Input): Promise<Added> {
      if ((await limit.total()) >= limit.maxRules) throw tooManyRules(limit.maxRules, limit.kind);
      if (limit.bytes !== undefined) {
        const size = JSON.stringify(input).length;
        const held = await limit.bytes.total();
        if (held + size > limit.bytes.max)
          throw new DomainFailure(
            "invalid_request",
            `The ${limit.kind} would hold ${held + size} bytes, more than max_rule_bytes (${limit.bytes.max}); remove some first, or make this one smaller`,
          );
      }
      return control.add(input);
    },
  };
}

/**
 * What the rules of one kind may weigh, every sandbox's together (fault rules: a `respond` body
 * is up to body_limit). 1000 rules of 90 KB made one unscoped GET /_mock/faults an 86 MB answer
 * built in one turn, ~500 ms in which no send was answered.
 */
export interface RuleBytesLimit {
  max: number;
  total: () => Promise<number>;
}
