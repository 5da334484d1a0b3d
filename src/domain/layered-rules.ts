// A sandbox's rules over the default sandbox's: the rules added without a sandbox apply in every sandbox, after its own.

import type { FaultPlan } from "./faults.js";
import type { OutcomeBook } from "./outcomes.js";

/** Decides by `own` (one-offs first, then its rules); when none of them decides the response, by `everywhere`'s rules. Latencies add up. */
export function layeredFaultPlan(own: FaultPlan, everywhere: Pick<FaultPlan, "decide">): FaultPlan {
  return {
    ...own,
    async decide(target, oneOffs) {
      const mine = await own.decide(target, oneOffs);
      if (mine.fault !== undefined) return mine;
      const shared = await everywhere.decide(target, []);
      return { latencyMs: mine.latencyMs + shared.latencyMs, fault: shared.fault };
    },
  };
}

/** Applies `own`'s rules, then, while `accept` asks for more, `everywhere`'s. */
export function layeredOutcomeBook(own: OutcomeBook, everywhere: Pick<OutcomeBook, "apply">): OutcomeBook {
  return {
    ...own,
    async apply(target, accept) {
      // Set in the callback: an object, so that the check after it reads what the callback left.
      const decided = { done: false };
      await own.apply(target, (rule) => {
        const wanted = accept(rule);
        if (wanted === "done") decided.done = true;
        return wanted;
      });
      if (!decided.done) await everywhere.apply(target, accept);
    },
  };
}
