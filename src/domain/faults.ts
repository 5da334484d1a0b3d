// Fault rules: adding, matching (globs, key digest), times and seeded probability, in order.

import type { HttpResponse } from "../response.js";
import { FAULT_RULE_BOUNDS } from "../generated/admin-schemas.js";
import type { FaultKind, FaultRule, FaultRuleInput, JsonValue } from "../wire.js";
import { DomainFailure } from "./failure.js";
import type { RuleBook, RuleBookOptions, RuleKind, RuleTarget } from "./rule-book.js";

export const SERVER_ERROR_STATUSES = [500, 502, 503, 504] as const;
export const DEFAULT_LATENCY_MS = 1000;
export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_RETRY_AFTER_S = 1;
/**
 * The bounds admin.yaml gives a rule, which the header and magic recipients keep too: 10 minutes
 * of delay, and a day of Retry-After, so that it stays a plain integer.
 */
export const MAX_DELAY_MS = FAULT_RULE_BOUNDS.delay_ms.maximum;
export const MAX_RETRY_AFTER_S = FAULT_RULE_BOUNDS.retry_after_s.maximum;

/** What one request offers to the rules. */
export type FaultTarget = RuleTarget;

/** What a `respond` fault sends: the rule's status, headers and body, the body already as text. */
/** Its headers are the rule's, plus a Content-Type for its body when it names none; no body is undefined. */
export type GivenResponse = HttpResponse<string | undefined>;

/** A fault picked for a request, with its parameters filled in. */
export interface ChosenFault {
  kind: FaultKind;
  /** Only when the fault names one; otherwise `status_codes` or the default decides. */
  status: number | undefined;
  /** Always set for `rate_limit` (default 1); for `server_error` only when asked for. */
  retryAfterS: number | undefined;
  delayMs: number;
  /** `respond` only. */
  response: GivenResponse | undefined;
}

export interface FaultOutcome {
  /** Total delay of the `latency` faults that applied (they compose with the rest). */
  latencyMs: number;
  /** The fault that decides the response, if any. */
  fault: ChosenFault | undefined;
}

/** Asynchronous like the other state, so a shared store can count `times` across replicas. */
export interface FaultPlan {
  add(input: FaultRuleInput): Promise<FaultRule>;
  list(): Promise<FaultRule[]>;
  count(): Promise<number>;
  bytes(): Promise<number>;
  /** False when no rule has that id. */
  remove(id: string): Promise<boolean>;
  clear(): Promise<void>;
  /** Back to the rules of the config and a freshly seeded generator. */
  reset(): Promise<void>;
  /** Tries `oneOffs` (from a header or a magic recipient) first, then the rules in order. */
  decide(target: FaultTarget, oneOffs: readonly ChosenFault[]): Promise<FaultOutcome>;
}

export type FaultParameter = "status" | "retry_after_s" | "delay_ms" | "headers" | "body";

/** The parameters each kind takes, in the order a magic recipient's + parts give them; any other is a mistake worth reporting. */
export const PARAMETERS_OF: Record<FaultKind, readonly FaultParameter[]> = {
  invalid_recipient: [],
  invalid_template_id: [],
  missing_template_data: [],
  rate_limit: ["retry_after_s"],
  // A real 503 often says when to come back.
  server_error: ["status", "retry_after_s"],
  latency: ["delay_ms"],
  timeout: ["delay_ms"],
  disconnect: [],
  lost_answer: [],
  malformed_response: [],
  respond: ["status", "headers", "body"],
};

/** A rule's problem, and the parameter it is about (for a trigger to point at its own header). */
export interface RuleProblem {
  parameter: FaultParameter | undefined;
  message: string;
}

/** How a way of asking for a fault calls each parameter: the rule's field names by default. */
export type ParameterNames = Record<FaultParameter, string>;

const RULE_FIELDS: ParameterNames = { status: "status", retry_after_s: "retry_after_s", delay_ms: "delay_ms", headers: "headers", body: "body" };

/** The checks of the parameters that a schema cannot express, worded with `names`. */
export function parameterProblem(input: FaultRuleInput, names: ParameterNames = RULE_FIELDS): RuleProblem | undefined {
  const allowed = PARAMETERS_OF[input.fault];
  for (const parameter of Object.keys(RULE_FIELDS) as FaultParameter[]) {
    if (input[parameter] !== undefined && !allowed.includes(parameter)) {
      const takes = allowed.length > 0 ? ` (it takes ${allowed.map((name) => names[name]).join(", ")})` : "";
      return { parameter, message: `${names[parameter]} does not apply to the fault ${input.fault}${takes}` };
    }
  }
  const { status } = input;
  if (input.fault === "server_error" && status !== undefined && !(SERVER_ERROR_STATUSES as readonly number[]).includes(status)) {
    return { parameter: "status", message: `${names.status} of server_error must be one of ${SERVER_ERROR_STATUSES.join(", ")}` };
  }
  if (input.retry_after_s !== undefined && input.retry_after_s > MAX_RETRY_AFTER_S) {
    return { parameter: "retry_after_s", message: `${names.retry_after_s} must be at most ${MAX_RETRY_AFTER_S} (a day)` };
  }
  if (input.delay_ms !== undefined && input.delay_ms > MAX_DELAY_MS) {
    return { parameter: "delay_ms", message: `${names.delay_ms} must be at most ${MAX_DELAY_MS}` };
  }
  return undefined;
}

/** How large a `respond` rule may be: each rule is kept whole, at most max_rules of them. */
export interface RespondLimits {
  /** Largest body, in UTF-8 bytes: body_limit, the size a request body may have. */
  bodyBytes: number;
  /** Largest header block: max_header_bytes, what Node's HTTP clients read by default. */
  headerBytes: number;
  /** Most levels of arrays and objects the body may nest (`max_respond_depth`). */
  depth: number;
}

/**
 * Whether `value` nests more than `limit` levels of arrays and objects. Walked with a list, not
 * by recursion: the value may nest as deep as the text it was parsed from allows.
 */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  const pending: { value: unknown; depth: number }[] = [{ value, depth: 0 }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (next.value === null || typeof next.value !== "object") continue;
    const depth = next.depth + 1;
    if (depth > limit) return true;
    for (const inner of Object.values(next.value)) pending.push({ value: inner, depth });
  }
  return false;
}

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Printable ASCII, spaces and tabs: no CR or LF to split the response, nothing a client would read differently. */
const HEADER_VALUE = /^[\t\x20-\x7e]*$/;
/** Set by the connection, not by a response: written by hand they would break it. */
const CONNECTION_HEADERS = new Set(["connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer", "upgrade"]);
/** Statuses HTTP gives no body. */
const BODILESS_STATUSES = new Set([204, 304]);

function ruleBodyText(body: Exclude<JsonValue, null>): string {
  return typeof body === "string" ? body : JSON.stringify(body);
}

function respondHeadersProblem(headers: Record<string, string>, limits: RespondLimits): string | undefined {
  const seen = new Set<string>();
  let headerBytes = 0;
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (!HEADER_NAME.test(name)) return `headers: ${JSON.stringify(name)} is not a header name (letters, digits and ! # $ % & ' * + - . ^ _ \` | ~ only)`;
    if (seen.has(lower)) return `headers: ${name} is given twice (header names are case-insensitive)`;
    seen.add(lower);
    if (CONNECTION_HEADERS.has(lower)) return `headers.${name}: a hop-by-hop header belongs to the connection, sendmock cannot set it on an answer`;
    if (lower === "content-length") return `headers.${name}: sendmock sets Content-Length from the body, so that the answer stays readable`;
    if (!HEADER_VALUE.test(value)) return `headers.${name} must be printable ASCII on one line (no CR, LF or other control characters)`;
    headerBytes += Buffer.byteLength(`${name}: ${value}\r\n`);
  }
  if (headerBytes > limits.headerBytes) return `headers come to ${headerBytes} bytes, more than max_header_bytes (${limits.headerBytes})`;
  return undefined;
}

/** The checks of a `respond` rule: what it sends must be a response HTTP can carry, of a bounded size. */
function respondProblem(input: FaultRuleInput, limits: RespondLimits): string | undefined {
  const { status, body, headers } = input;
  if (status === undefined) return "respond needs a status: the HTTP status to answer with (200-599)";
  // A 1xx is an interim response: the client would wait for the final one until it gives up.
  if (status < 200) return `status of respond must be 200-599: a ${status} is an interim answer, the client would go on waiting (use timeout for that)`;
  if ((body as unknown) === null) return 'body must not be null: leave it out for an answer without a body, or give the text "null"';
  if (body !== undefined && BODILESS_STATUSES.has(status)) return `body is not allowed with status ${status}: HTTP gives a ${status} answer no body`;
  // Before anything reads the body: the code that copies and writes it recurses once per level.
  if (nestsDeeperThan(body, limits.depth)) return `body nests deeper than max_respond_depth (${limits.depth} levels of arrays and objects)`;
  if (body !== undefined) {
    const bytes = Buffer.byteLength(ruleBodyText(body));
    if (bytes > limits.bodyBytes) return `body is ${bytes} bytes, more than body_limit (${limits.bodyBytes})`;
  }
  return headers === undefined ? undefined : respondHeadersProblem(headers, limits);
}

/** The checks a schema cannot express; returns the problem in one sentence, or undefined. */
export function checkFaultRule(input: FaultRuleInput, limits: RespondLimits): string | undefined {
  return parameterProblem(input)?.message ?? (input.fault === "respond" ? respondProblem(input, limits) : undefined);
}

/** A rule's problem as the refusal of the rule: `Invalid fault rule: <problem>`. */
export function faultRuleRefusal(problem: string): DomainFailure {
  return new DomainFailure("invalid_request", `Invalid fault rule: ${problem}`);
}

/** What tests and the admin API may do with the rules. */
export interface FaultControl {
  add(input: FaultRuleInput): Promise<FaultRule>;
  list(): Promise<FaultRule[]>;
  /** How many rules it holds, without copying them. */
  count(): Promise<number>;
  /** Their size as JSON, without copying them. */
  bytes(): Promise<number>;
  remove(id: string): Promise<boolean>;
  clear(): Promise<void>;
}

/**
 * The rules' control over `plan`. `add` takes a rule of the shape admin.yaml's FaultRuleInput
 * gives (checked by whoever takes it in: the admin API's contract, the library's handle) and
 * refuses what a schema cannot say (checkFaultRule).
 */
export function createFaultControl(plan: FaultPlan, limits: RespondLimits): FaultControl {
  return {
    async add(input) {
      const problem = checkFaultRule(input, limits);
      if (problem !== undefined) throw faultRuleRefusal(problem);
      return plan.add(input);
    },
    list: () => plan.list(),
    count: () => plan.count(),
    bytes: () => plan.bytes(),
    remove: (id) => plan.remove(id),
    clear: () => plan.clear(),
  };
}

export interface FaultParameters {
  status?: number;
  retryAfterS?: number;
  delayMs?: number;
  headers?: Record<string, string>;
  body?: Exclude<JsonValue, null>;
}

/** A `respond` rule's response, its body serialized once when the rule is compiled rather than on each send. */
function givenResponse(status: number, headers: Record<string, string>, body: Exclude<JsonValue, null> | undefined): GivenResponse {
  const namesType = Object.keys(headers).some((name) => name.toLowerCase() === "content-type");
  if (body === undefined) return { status, headers: { ...headers }, body: undefined };
  const contentType = typeof body === "string" ? "text/plain; charset=utf-8" : "application/json";
  return { status, headers: namesType ? { ...headers } : { "Content-Type": contentType, ...headers }, body: ruleBodyText(body) };
}

export function chosenFault(kind: FaultKind, parameters: FaultParameters = {}): ChosenFault {
  return {
    kind,
    status: parameters.status,
    retryAfterS: parameters.retryAfterS ?? (kind === "rate_limit" ? DEFAULT_RETRY_AFTER_S : undefined),
    delayMs: parameters.delayMs ?? (kind === "timeout" ? DEFAULT_TIMEOUT_MS : DEFAULT_LATENCY_MS),
    response: kind === "respond" ? givenResponse(parameters.status ?? 200, parameters.headers ?? {}, parameters.body) : undefined,
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
    // Copies: a caller changing its object after adding the rule must not change the rule.
    headers: input.fault === "respond" ? { ...input.headers } : null,
    body: input.body === undefined ? null : structuredClone(input.body),
    source: common.source,
    created_at: common.created_at,
  }),
};

function chosenByRule(rule: FaultRule): ChosenFault {
  return chosenFault(rule.fault, {
    status: rule.status ?? undefined,
    retryAfterS: rule.retry_after_s ?? undefined,
    delayMs: rule.delay_ms ?? undefined,
    headers: rule.headers ?? undefined,
    body: rule.body ?? undefined,
  });
}

/** The fault plan over a book of fault rules: one-offs first, then the rules, latency composing with the rest. */
export function createFaultPlan(book: RuleBook<FaultRuleInput, FaultRule>): FaultPlan {
  return {
    add: (input) => book.add(input),
    list: () => book.list(),
    count: () => book.count(),
    bytes: () => book.bytes(),
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
