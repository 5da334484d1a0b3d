// Fault rules: adding, matching (globs, key digest), times and seeded probability, in order.

import { randomUUID } from "node:crypto";
import { uniformFloat64 } from "pure-rand/distribution/uniformFloat64";
import { xoroshiro128plus } from "pure-rand/generator/xoroshiro128plus";
import { ApiError } from "../errors.js";
import { describeProblem, schemaCheck } from "../contract/schema-check.js";
import { FAULT_KINDS, type FaultKind, type FaultRule, type FaultRuleInput } from "../wire.js";
import { apiKeyHint } from "./api-keys.js";
import { sha256 } from "./digest.js";
import { compileGlob, MAX_GLOB_LENGTH } from "./glob.js";

export const SERVER_ERROR_STATUSES = [500, 502, 503, 504] as const;
export const DEFAULT_LATENCY_MS = 1000;
export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_RETRY_AFTER_S = 1;
export const MAX_DELAY_MS = 600_000;
// Bounded so that Retry-After and the counters stay plain integers: a day, and a billion uses.
export const MAX_RETRY_AFTER_S = 86_400;
export const MAX_TIMES = 1_000_000_000;
export const DEFAULT_MAX_RULES = 1000;

/** What one request offers to the rules. */
export interface FaultTarget {
  to: string;
  templateId: string;
  apiKey: string;
}

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
    match: {
      type: "object",
      additionalProperties: false,
      properties: {
        to: { type: "string", minLength: 1, maxLength: MAX_GLOB_LENGTH },
        template_id: { type: "string", minLength: 1, maxLength: MAX_GLOB_LENGTH },
        api_key: { type: "string", minLength: 1 },
      },
    },
    times: { type: "integer", minimum: 1, maximum: MAX_TIMES },
    probability: { type: "number", minimum: 0, maximum: 1 },
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
  const shapeProblem = checkRuleShape(input);
  if (shapeProblem) throw new ApiError("invalid_request", `Invalid fault rule: ${describeProblem(shapeProblem, (key) => key, "the rule")}`);
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

/** A rule ready to be matched: its public view, its globs compiled, its API key as a digest. */
export interface CompiledRule {
  view: FaultRule;
  /** Kept instead of the key itself, which no store may hold. */
  apiKeyDigest: string | undefined;
  matchesTo: ((to: string) => boolean) | undefined;
  matchesTemplate: ((templateId: string) => boolean) | undefined;
  chosen: ChosenFault;
}

/** A new rule's view and key digest: what a store keeps. */
export function newRule(input: FaultRuleInput, source: FaultRule["source"], now: Date): { view: FaultRule; apiKeyDigest: string | undefined } {
  const apiKey = input.match?.api_key;
  return {
    view: {
      id: `flt_${randomUUID()}`,
      fault: input.fault,
      match: { to: input.match?.to ?? null, template_id: input.match?.template_id ?? null },
      api_key_hint: apiKey === undefined ? null : apiKeyHint(apiKey),
      times: input.times ?? null,
      probability: input.probability ?? 1,
      status: input.status ?? null,
      retry_after_s: input.retry_after_s ?? null,
      delay_ms: input.delay_ms ?? null,
      source,
      created_at: now.toISOString(),
    },
    apiKeyDigest: apiKey === undefined ? undefined : sha256(apiKey, "hex"),
  };
}

export function compileRule(view: FaultRule, apiKeyDigest: string | undefined): CompiledRule {
  const glob = (pattern: string | null) => (pattern === null ? undefined : compileGlob(pattern));
  return {
    view,
    apiKeyDigest,
    matchesTo: glob(view.match.to),
    matchesTemplate: glob(view.match.template_id),
    chosen: chosenFault(view.fault, { status: view.status ?? undefined, retryAfterS: view.retry_after_s ?? undefined, delayMs: view.delay_ms ?? undefined }),
  };
}

/** Whether `rule` applies to `target`; the key digest is computed only when a rule names a key. */
export function ruleMatches(rule: CompiledRule, target: FaultTarget, keyDigest: () => string): boolean {
  return (
    (rule.matchesTo?.(target.to) ?? true) &&
    (rule.matchesTemplate?.(target.templateId) ?? true) &&
    (rule.apiKeyDigest === undefined || rule.apiKeyDigest === keyDigest())
  );
}

/** The rules' seeded generator: draws only for rules that ask for a probability, so adding a certain rule shifts nothing. */
export function createDraw(seed: number | null): { wins(rule: CompiledRule): boolean; reseed(): void } {
  const fixedSeed = seed ?? Math.floor(Math.random() * 2 ** 31);
  let generator = xoroshiro128plus(fixedSeed);
  return {
    wins: (rule) => rule.view.probability >= 1 || uniformFloat64(generator) < rule.view.probability,
    reseed: () => {
      generator = xoroshiro128plus(fixedSeed);
    },
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

/** A copy of a rule's view that a caller may change without changing the stored rule. */
export function copyRule(view: FaultRule): FaultRule {
  return { ...view, match: { ...view.match } };
}

export interface FaultPlanOptions {
  /** The rules of the config file, restored by reset. */
  initialRules: readonly FaultRuleInput[];
  /** Same seed and same requests give the same outcomes; null seeds at random. */
  seed: number | null;
  /** Most rules at once (default 1000); adding past it answers 400 invalid_request. */
  maxRules?: number;
  now?: () => Date;
}
