// The cap on how many rules of one kind (fault rules now, outcome rules later) a mock holds.

import { DomainFailure } from "./failure.js";

/**
 * The `invalid_request` refusal of a rule past `maxRules`. Every send is matched against every
 * rule: 50,000 rules cost 128 ms per send and 800 MB.
 */
export function tooManyRules(maxRules: number, kind: string): DomainFailure {
  return new DomainFailure("invalid_request", `Too many ${kind} rules: at most ${maxRules} (max_rules); remove some first`);
}
