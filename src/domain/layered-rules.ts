// A sandbox's rules and webhooks over the default sandbox's: those added without a sandbox apply in every sandbox, after its own.

import type { FaultPlan } from "./faults.js";
import type { OutcomeBook } from "./outcomes.js";
import type { WebhookStore } from "./webhooks.js";

/** Rules that may say, without a store round trip, that they hold none: a layer with none is skipped. */
export interface TrackedRules {
  /** False only when no rule can be there (none at start-up, none added since the last clear); true otherwise. */
  mayHaveRules(): boolean;
}

/**
 * `rules` whose adds, clears and resets are tracked in this process, for the layers over it.
 * Asking the default sandbox's empty rules on every send in a sandbox cost ~10% of its CPU in the
 * bench. Shared by replicas, another one may add a rule unseen here: then it always may.
 */
export function trackingRules<T extends { add(input: never): Promise<unknown>; clear(): Promise<void>; reset(): Promise<void> }>(
  rules: T,
  options: { startUpRules: number; shared: boolean },
): T & TrackedRules {
  const state = { mayHave: options.shared || options.startUpRules > 0 };
  return {
    ...rules,
    mayHaveRules: () => state.mayHave,
    add(input: never) {
      state.mayHave = true;
      return rules.add(input);
    },
    async clear() {
      await rules.clear();
      state.mayHave = options.shared;
    },
    async reset() {
      await rules.reset();
      state.mayHave = options.shared || options.startUpRules > 0;
    },
  };
}

/** Decides by `own` (one-offs first, then its rules); when none of them decides the response, by `everywhere`'s rules. Latencies add up. */
export function layeredFaultPlan(own: FaultPlan, everywhere: Pick<FaultPlan, "decide"> & TrackedRules): FaultPlan {
  return {
    ...own,
    async decide(target, oneOffs) {
      const mine = await own.decide(target, oneOffs);
      if (mine.fault !== undefined || !everywhere.mayHaveRules()) return mine;
      const shared = await everywhere.decide(target, []);
      return { latencyMs: mine.latencyMs + shared.latencyMs, fault: shared.fault };
    },
  };
}

/** Applies `own`'s rules, then, while `accept` asks for more, `everywhere`'s. */
export function layeredOutcomeBook(own: OutcomeBook, everywhere: Pick<OutcomeBook, "apply"> & TrackedRules): OutcomeBook {
  return {
    ...own,
    async apply(target, accept) {
      if (!everywhere.mayHaveRules()) return own.apply(target, accept);
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

/**
 * The webhooks a sandbox's events are delivered to: its own, then those added without a sandbox
 * (the default sandbox's), found by id in either; a 410 disables it where it is kept. Adding,
 * removing and resetting stay the sandbox's own.
 */
export function layeredWebhookStore(own: WebhookStore, everywhere: WebhookStore): WebhookStore {
  return {
    ...own,
    async list() {
      const [mine, shared] = await Promise.all([own.list(), everywhere.list()]);
      return [...mine, ...shared];
    },
    async get(id) {
      return (await own.get(id)) ?? everywhere.get(id);
    },
    async disable(id) {
      await ((await own.get(id)) === undefined ? everywhere : own).disable(id);
    },
  };
}
