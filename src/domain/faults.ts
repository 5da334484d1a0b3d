// Fault rules: adding, matching (globs, key digest), times and seeded probability, in order.

import { createHash, randomUUID } from "node:crypto";
import picomatch from "picomatch";
import { uniformFloat64 } from "pure-rand/distribution/uniformFloat64";
import { xoroshiro128plus } from "pure-rand/generator/xoroshiro128plus";
import { ApiError } from "../errors.js";
import { schemaCheck } from "../schema-check.js";
import { FAULT_KINDS, type FaultKind, type FaultRule, type FaultRuleInput } from "../wire.js";
import { apiKeyHint } from "./api-keys.js";

export const SERVER_ERROR_STATUSES = [500, 502, 503, 504] as const;
export const DEFAULT_LATENCY_MS = 1000;
export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_RETRY_AFTER_S = 1;
export const MAX_DELAY_MS = 600_000;

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
        to: { type: "string", minLength: 1 },
        template_id: { type: "string", minLength: 1 },
        api_key: { type: "string", minLength: 1 },
      },
    },
    times: { type: "integer", minimum: 1 },
    probability: { type: "number", minimum: 0, maximum: 1 },
    status: { enum: SERVER_ERROR_STATUSES },
    retry_after_s: { type: "integer", minimum: 0 },
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

function digest(key: string): string {
  return createHash("sha256").update(key).digest("hex");
}

interface StoredRule {
  view: FaultRule;
  matchesTo: ((to: string) => boolean) | undefined;
  matchesTemplate: ((templateId: string) => boolean) | undefined;
  apiKeyDigest: string | undefined;
  chosen: ChosenFault;
}

function storeRule(input: FaultRuleInput, source: FaultRule["source"], now: Date): StoredRule {
  const glob = (pattern: string | undefined) => (pattern === undefined ? undefined : picomatch(pattern, { nocase: true, dot: true }));
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
    matchesTo: glob(input.match?.to),
    matchesTemplate: glob(input.match?.template_id),
    apiKeyDigest: apiKey === undefined ? undefined : digest(apiKey),
    chosen: chosenFault(input.fault, { status: input.status, retryAfterS: input.retry_after_s, delayMs: input.delay_ms }),
  };
}

export interface FaultPlanOptions {
  /** The rules of the config file, restored by reset. */
  initialRules: readonly FaultRuleInput[];
  /** Same seed and same requests give the same outcomes; null seeds at random. */
  seed: number | null;
  now?: () => Date;
}

export function createMemoryFaultPlan(options: FaultPlanOptions): FaultPlan {
  const now = options.now ?? (() => new Date());
  const seed = options.seed ?? Math.floor(Math.random() * 2 ** 31);
  let rules: StoredRule[] = [];
  let generator = xoroshiro128plus(seed);

  function restore(): void {
    rules = options.initialRules.map((input) => storeRule(input, "config", now()));
    generator = xoroshiro128plus(seed);
  }
  restore();

  function matches(rule: StoredRule, target: FaultTarget, keyDigest: () => string): boolean {
    return (
      (rule.matchesTo?.(target.to) ?? true) &&
      (rule.matchesTemplate?.(target.templateId) ?? true) &&
      (rule.apiKeyDigest === undefined || rule.apiKeyDigest === keyDigest())
    );
  }

  /** Draws only for rules that ask for a probability, so adding a certain rule shifts nothing. */
  function winsDraw(rule: StoredRule): boolean {
    return rule.view.probability >= 1 || uniformFloat64(generator) < rule.view.probability;
  }

  /** Counts one use down; synchronous, so two requests can never both take the last one. */
  function use(rule: StoredRule): void {
    if (rule.view.times === null) return;
    rule.view.times -= 1;
    if (rule.view.times <= 0) rules = rules.filter((candidate) => candidate !== rule);
  }

  return {
    add(input) {
      const rule = storeRule(input, "api", now());
      rules.push(rule);
      return Promise.resolve({ ...rule.view, match: { ...rule.view.match } });
    },
    list() {
      return Promise.resolve(rules.map((rule) => ({ ...rule.view, match: { ...rule.view.match } })));
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
      let latencyMs = 0;
      for (const fault of oneOffs) {
        if (fault.kind !== "latency") return Promise.resolve({ latencyMs, fault });
        latencyMs += fault.delayMs;
      }
      let keyDigest: string | undefined;
      const lazyDigest = (): string => (keyDigest ??= digest(target.apiKey));
      for (const rule of [...rules]) {
        if (!matches(rule, target, lazyDigest) || !winsDraw(rule)) continue;
        use(rule);
        if (rule.chosen.kind !== "latency") return Promise.resolve({ latencyMs, fault: rule.chosen });
        latencyMs += rule.chosen.delayMs;
      }
      return Promise.resolve({ latencyMs, fault: undefined });
    },
  };
}
