// Fault rules: adding, matching (globs, key digest), times and seeded probability, in order.

import { ApiError } from "../errors.js";
import { schemaCheck } from "../contract/schema-check.js";
import { FAULT_KINDS, type FaultKind, type FaultRule, type FaultRuleInput } from "../wire.js";
import { RULE_MATCH_PROPERTIES, type RuleBook, type RuleBookOptions, type RuleKind, type RuleTarget } from "./rule-book.js";

export const SERVER_ERROR_STATUSES = [500, 502, 503, 504] as const;
export const DEFAULT_LATENCY_MS = 1000;
export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_RETRY_AFTER_S = 1;
export const MAX_DELAY_MS = 600_000;
// Bounded so that Retry-After stays a plain integer: a day.
export const MAX_RETRY_AFTER_S = 86_400;

/** What one request offers to the rules. */
export type FaultTarget = RuleTarget;

/** A fault picked for a request, with its parameters filled in. */
export interface ChosenFault {
  kind: FaultKind;
  /** Only when the fault names one; otherwise `status_codes` or the default decides. */
  status: number | undefined;
  retryAfterS: number;
  delayMs: number;
}

export interface FaultOutcome {
  /** Total delay of the `latency` faults that applied (they compose with the rest). */
  latencyMs: number;
  /** The fault that decides the answer, if any. */
  fault: ChosenFault | undefined;
}

/** Asynchronous like the other state, so a shared store can count `times` across replicas. */
export interface FaultPlan {
  add(input: FaultRuleInput): Promise<FaultRule>;
  list(): Promise<FaultRule[]>;
  /** False when no rule has that id. */
  remove(id: string): Promise<boolean>;
  clear(): Promise<void>;
  /** Back to the rules of the config and a freshly seeded generator. */
  reset(): Promise<void>;
  /** Tries `oneOffs` (from a header or a magic recipient) first, then the rules in order. */
  decide(target: FaultTarget, oneOffs: readonly ChosenFault[]): Promise<FaultOutcome>;
}

/** A rule as written in the config file, posted to /_mock/faults or given to `faults.add`. */
export const FAULT_RULE_SCHEMA = {
  type: "object",
  additionalProperties: false,
  required: ["fault"],
  properties: {
    fault: { enum: FAULT_KINDS },
    ...RULE_MATCH_PROPERTIES,
    status: { enum: SERVER_ERROR_STATUSES },
    retry_after_s: { type: "integer", minimum: 0, maximum: MAX_RETRY_AFTER_S },
    delay_ms: { type: "integer", minimum: 0, maximum: MAX_DELAY_MS },
  },
} as const;

const checkRuleShape = schemaCheck(FAULT_RULE_SCHEMA);

/** The parameters each kind takes; any other is a mistake worth reporting. */
const PARAMETERS_OF: Record<FaultKind, readonly ("status" | "retry_after_s" | "delay_ms")[]> = {
  invalid_recipient: [],
  invalid_template_id: [],
  missing_template_data: [],
  rate_limit: ["retry_after_s"],
  server_error: ["status"],
  latency: ["delay_ms"],
  timeout: ["delay_ms"],
  disconnect: [],
  malformed_response: [],
};

/** The checks a schema cannot express; answers the problem in one sentence, or undefined. */
export function checkFaultRule(input: FaultRuleInput): string | undefined {
  const allowed = PARAMETERS_OF[input.fault];
  for (const parameter of ["status", "retry_after_s", "delay_ms"] as const) {
    if (input[parameter] !== undefined && !allowed.includes(parameter)) {
      return `${parameter} does not apply to the fault ${input.fault}${allowed.length > 0 ? ` (it takes ${allowed.join(", ")})` : ""}`;
    }
  }
  if (input.status !== undefined && !(SERVER_ERROR_STATUSES as readonly number[]).includes(input.status)) {
    return `status of server_error must be one of ${SERVER_ERROR_STATUSES.join(", ")}`;
  }
  if (input.delay_ms !== undefined && input.delay_ms > MAX_DELAY_MS) {
    return `delay_ms must be at most ${MAX_DELAY_MS}`;
  }
  return undefined;
}

/** Checks a rule from a caller that no contract validated; throws an `invalid_request` ApiError. */
export function validFaultRule(input: unknown): FaultRuleInput {
  const error = checkRuleShape(input);
  if (error) {
    const where = error.instancePath.slice(1).replaceAll("/", ".") || "the rule";
    throw new ApiError("invalid_request", `Invalid fault rule: ${where} ${error.message ?? "is invalid"}`);
  }
  const rule = input as FaultRuleInput;
  const problem = checkFaultRule(rule);
  if (problem !== undefined) throw new ApiError("invalid_request", `Invalid fault rule: ${problem}`);
  return rule;
}

/** What tests and the admin API may do with the rules. */
export interface FaultControl {
  add(input: FaultRuleInput): Promise<FaultRule>;
  list(): Promise<FaultRule[]>;
  remove(id: string): Promise<boolean>;
  clear(): Promise<void>;
}

export function createFaultControl(plan: FaultPlan): FaultControl {
  return {
    add: async (input) => plan.add(validFaultRule(input)),
    list: () => plan.list(),
    remove: (id) => plan.remove(id),
    clear: () => plan.clear(),
  };
}

export function chosenFault(kind: FaultKind, parameters: { status?: number; retryAfterS?: number; delayMs?: number } = {}): ChosenFault {
  return {
    kind,
    status: parameters.status,
    retryAfterS: parameters.retryAfterS ?? DEFAULT_RETRY_AFTER_S,
    delayMs: parameters.delayMs ?? (kind === "timeout" ? DEFAULT_TIMEOUT_MS : DEFAULT_LATENCY_MS),
  };
}

/** Applies the one-off faults of a request (a header, a magic recipient): latency composes, anything else decides. */
export function applyOneOffs(oneOffs: readonly ChosenFault[]): FaultOutcome {
  let latencyMs = 0;
  for (const fault of oneOffs) {
    if (fault.kind !== "latency") return { latencyMs, fault };
    latencyMs += fault.delayMs;
  }
  return { latencyMs, fault: undefined };
}

export type FaultPlanOptions = RuleBookOptions<FaultRuleInput>;

/** Fault rules as a rule book keeps them. */
export const FAULT_RULES: RuleKind<FaultRuleInput, FaultRule> = {
  name: "fault",
  idPrefix: "flt_",
  view: (input, common) => ({
    id: common.id,
    fault: input.fault,
    match: common.match,
    api_key_hint: common.api_key_hint,
    times: common.times,
    probability: common.probability,
    status: input.status ?? null,
    retry_after_s: input.retry_after_s ?? null,
    delay_ms: input.delay_ms ?? null,
    source: common.source,
    created_at: common.created_at,
  }),
};

function chosenByRule(rule: FaultRule): ChosenFault {
  return chosenFault(rule.fault, { status: rule.status ?? undefined, retryAfterS: rule.retry_after_s ?? undefined, delayMs: rule.delay_ms ?? undefined });
}

/** The fault plan over a book of fault rules: one-offs first, then the rules, latency composing with the rest. */
export function createFaultPlan(book: RuleBook<FaultRuleInput, FaultRule>): FaultPlan {
  return {
    add: (input) => book.add(input),
    list: () => book.list(),
    remove: (id) => book.remove(id),
    clear: () => book.clear(),
    reset: () => book.reset(),
    async decide(target, oneOffs) {
      const outcome = applyOneOffs(oneOffs);
      if (outcome.fault) return outcome;
      let { latencyMs } = outcome;
      let fault: ChosenFault | undefined;
      await book.apply(target, (rule) => {
        const chosen = chosenByRule(rule);
        if (chosen.kind !== "latency") {
          fault = chosen;
          return "done";
        }
        latencyMs += chosen.delayMs;
        return "more";
      });
      return { latencyMs, fault };
    },
  };
}
