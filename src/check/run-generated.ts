// The generated part of `sendmock check`: sends N requests drawn from the contract with one seed,
// judges each response with the named checks, then shrinks each failing check's first failure that no
// waiver accepts. A response the transport could not judge (rate limited, the key refused) is judged by
// no check; a valid request goes only while the real-mail budget lasts.

import fc from "fast-check";
import type { ContractChecker } from "../contract/check.js";
import { printable } from "../domain/printable.js";
import type { ExplainedViolation } from "../errors.js";
import { contractAccepts, coverageRequests, requestArbitrary, type GeneratedRequest, type GenerationInputs } from "./generate.js";
import { CHECK_NAMES, EXPECTED, type CheckName } from "../contract/named-checks.js";
import { RESPONSE_CHECKS, judge, type Exchange } from "./named-checks.js";
import type { OutgoingRequest, Transport } from "./transport.js";
import type { SendBudget } from "./budget.js";
import type { Finding, Waivers } from "./waivers.js";

export interface GeneratedRunOptions {
  /** For the curl lines. */
  baseUrl: string;
  transport: Transport;
  contract: ContractChecker;
  inputs: GenerationInputs;
  /** How many random requests to generate, after the coverage pass. */
  count: number;
  seed: number;
  maxResponseMs?: number;
  /** How long the shrinking of one failure may take before its smallest request so far is kept; 0 does not shrink. */
  shrinkTimeLimitMs: number;
  /** Called before the first request, with how many of each pass there will be. */
  onStart?: (passes: { coverage: number; random: number }) => void;
  /** Called after each request of both passes. */
  onProgress?: (done: number, total: number) => void;
  /** With a recipient: the sends the target may accept; a valid request is not sent once it is spent. */
  budget?: SendBudget;
  /** Findings accepted: a waived failure is counted, never shrunk nor failed. */
  waivers: Waivers;
}

/** A failure brought down to its smallest request. */
export interface Reproduction {
  /** The rule the request breaks, its method and body, on one line. */
  request: string;
  curl: string;
}

export interface NamedCheckResult {
  name: CheckName;
  /** `inconclusive`: every request it would have judged was left without a judgeable response; `waived`: every failure it found, a waiver accepted. */
  outcome: "passed" | "failed" | "skipped" | "inconclusive" | "waived";
  expected: string;
  status?: number;
  problem?: ExplainedViolation;
  reproduction?: Reproduction;
  /** Requests of the run this check judged. */
  judged: number;
  /** Its failures a waiver accepted. */
  waived: number;
  durationMs: number;
  skipReason?: string;
}

export interface GeneratedRun {
  results: NamedCheckResult[];
  /** Requests sent, shrinking included. */
  sent: number;
  /** Generated negatives the contract turned out to accept: never sent. */
  discarded: number;
}

/** The checks that judge a request of this kind (every response goes through the first five). */
function appliesTo(check: CheckName, request: GeneratedRequest, maxResponseMs: number | undefined): boolean {
  switch (check) {
    case "negative_data_rejection":
      return request.kind === "negative_body" || request.kind === "wrong_content_type" || request.kind === "malformed_json";
    case "missing_required_header":
      return request.kind === "missing_auth" || request.kind === "malformed_auth";
    case "unsupported_method":
      return request.kind === "other_method";
    case "positive_data_acceptance":
      return request.kind === "positive";
    case "max_response_time":
      return maxResponseMs !== undefined;
    default:
      return true;
  }
}

/**
 * A shell word that is exactly `text`: in '…' when every character is visible, else in bash's
 * $'…' with each invisible or control character as the \xHH of its UTF-8 bytes, so that the line
 * replays the exact bytes and prints no escape sequence.
 */
function shellQuote(text: string): string {
  if (printable(text) === text) return `'${text.replaceAll("'", `'\\''`)}'`;
  let quoted = "";
  for (const char of text) {
    if (printable(char) !== char) for (const byte of Buffer.from(char, "utf8")) quoted += `\\x${byte.toString(16).padStart(2, "0")}`;
    else quoted += char === "'" || char === "\\" ? `\\${char}` : char;
  }
  return `$'${quoted}'`;
}

/** A curl line that sends the request again; the key stays in `$SENDMOCK_API_KEY`, never printed. */
export function curlCommand(baseUrl: string, request: OutgoingRequest): string {
  const parts = ["curl -sS -i", `-X ${request.method}`, shellQuote(`${baseUrl}/send`)];
  if (request.authorization === undefined) parts.push(`-H "Authorization: Bearer $SENDMOCK_API_KEY"`);
  else if (request.authorization !== null) parts.push(`-H ${shellQuote(`Authorization: ${request.authorization}`)}`);
  if (request.contentType !== undefined) parts.push(`-H ${shellQuote(`Content-Type: ${request.contentType}`)}`);
  for (const [name, value] of Object.entries(request.headers ?? {})) parts.push(`-H ${shellQuote(`${name}: ${value}`)}`);
  if (request.body !== undefined) parts.push(`--data-binary ${shellQuote(request.body)}`);
  return parts.join(" ");
}

/** `(defect) METHOD /send body`: how a request is shown, and what a waiver's `match.request` looks in. */
export function describeRequest(request: GeneratedRequest): string {
  return `(${request.defect}) ${request.method} /send${request.body === undefined ? "" : ` ${request.body}`}`;
}

async function send(options: GeneratedRunOptions, request: GeneratedRequest): Promise<Exchange> {
  const delivery = await options.transport.send(request);
  switch (delivery.kind) {
    case "response":
      return { request, response: delivery.response, durationMs: delivery.durationMs };
    case "no_response":
      return { request, failure: delivery.failure, answered: delivery.answered, status: delivery.status, durationMs: delivery.durationMs };
    default:
      return { request, response: delivery.response, inconclusive: delivery.detail, durationMs: delivery.durationMs };
  }
}

interface Failure {
  runIndex: number;
  exchange: Exchange;
  problem: ExplainedViolation;
}

/** The requests of a run, drawn as fast-check will draw them: the coverage pass as its examples, then `count` random ones. */
function draws(contract: ContractChecker, inputs: GenerationInputs, count: number) {
  const arbitrary = requestArbitrary(contract.requestSchema, inputs);
  // fast-check runs them first, in the same numbering as the random ones, so a path replays either.
  const examples = coverageRequests(contract.requestSchema, inputs).map((request): [GeneratedRequest] => [request]);
  /** Never sent: without --allow-send a request the contract accepts could deliver mail; with it, a "positive" must be valid. */
  const safe = (request: GeneratedRequest): boolean => contractAccepts(contract, request) === (inputs.recipient !== undefined && request.kind === "positive");
  return { arbitrary, examples, total: examples.length + count, safe };
}

/**
 * What a run with this seed would send, in order, sending nothing (`check --dry-run`): the same
 * draws as `runGenerated`, as fast-check draws a run's values from its seed alone.
 */
export function plannedRequests(
  contract: ContractChecker,
  inputs: GenerationInputs,
  count: number,
  seed: number,
): { requests: GeneratedRequest[]; discarded: number } {
  const { arbitrary, examples, total, safe } = draws(contract, inputs, count);
  const requests: GeneratedRequest[] = [];
  let discarded = 0;
  fc.check(
    fc.property(arbitrary, (request) => {
      if (safe(request)) requests.push(request);
      else discarded++;
      return true;
    }),
    { seed, numRuns: total, examples },
  );
  return { requests, discarded };
}

export async function runGenerated(options: GeneratedRunOptions): Promise<GeneratedRun> {
  const { arbitrary, examples, total, safe } = draws(options.contract, options.inputs, options.count);
  options.onStart?.({ coverage: examples.length, random: options.count });
  const allowSend = options.inputs.recipient !== undefined;
  const { budget, waivers } = options;
  /** A valid request delivers mail: it goes only while the budget lasts. */
  const withinBudget = (request: GeneratedRequest): boolean => request.kind !== "positive" || budget === undefined || budget.allows();
  const finding = (exchange: Exchange, pointer: string): Finding => ({
    request: describeRequest(exchange.request),
    pointer,
    status: exchange.response?.status ?? exchange.status,
  });
  const first = new Map<CheckName, Failure>();
  const judged = new Map<CheckName, number>();
  /** Requests a check would have judged that got no judgeable response. */
  const unjudged = new Map<CheckName, number>();
  /** Failures a waiver accepted, and valid requests kept back by the budget. */
  const waived = new Map<CheckName, number>();
  let withheld = 0;
  const count = (counts: Map<CheckName, number>, check: CheckName): void => void counts.set(check, (counts.get(check) ?? 0) + 1);
  /** The wall time of the requests each check judged or waited for (pacing and retries included), for its JUnit time. */
  const spent = new Map<CheckName, number>();
  let sent = 0;
  let discarded = 0;
  let runIndex = 0;

  // fast-check draws the requests, so `--seed` replays them; this pass only records, shrinking comes after.
  await fc.check(
    fc.asyncProperty(arbitrary, async (request) => {
      const index = runIndex++;
      if (!safe(request)) {
        discarded++;
      } else if (!withinBudget(request)) {
        withheld++;
        budget?.withhold();
      } else {
        const sending = performance.now();
        const exchange = await send(options, request);
        const took = performance.now() - sending;
        sent++;
        if (request.kind === "positive") budget?.spend(exchange.response?.status ?? exchange.status);
        const verdicts = judge(options.contract, exchange, options.maxResponseMs);
        for (const check of CHECK_NAMES) {
          if (!appliesTo(check, request, options.maxResponseMs)) continue;
          spent.set(check, (spent.get(check) ?? 0) + took);
          if (exchange.inconclusive !== undefined && !(exchange.response !== undefined && RESPONSE_CHECKS.has(check))) {
            count(unjudged, check);
            continue;
          }
          // Without a whole response (none came, or it broke off) only the checks that judge its absence or its time judged anything.
          if (exchange.inconclusive === undefined && exchange.response === undefined && check !== "not_a_server_error" && check !== "max_response_time") {
            count(unjudged, check);
            continue;
          }
          count(judged, check);
          const problem = verdicts[check];
          if (problem === undefined) continue;
          if (waivers.waive("check", check, finding(exchange, problem.path)) !== undefined) count(waived, check);
          else if (!first.has(check)) first.set(check, { runIndex: index, exchange, problem });
        }
      }
      options.onProgress?.(index + 1, total);
      return true;
    }),
    { seed: options.seed, numRuns: total, examples },
  );

  const results: NamedCheckResult[] = [];
  for (const name of CHECK_NAMES) {
    const base = { name, expected: EXPECTED[name], judged: judged.get(name) ?? 0, waived: waived.get(name) ?? 0 };
    const skipReason =
      name === "max_response_time" && options.maxResponseMs === undefined
        ? "needs --max-response-ms"
        : name === "positive_data_acceptance" && !allowSend
          ? "sends mail: needs --allow-send --recipient ADDR"
          : name === "positive_data_acceptance" && base.judged === 0 && withheld > 0
            ? `the --max-sends budget was spent before any of its ${withheld} valid requests`
            : undefined;
    if (skipReason !== undefined) {
      results.push({ ...base, outcome: "skipped", skipReason, durationMs: 0 });
      continue;
    }
    const failure = first.get(name);
    if (failure === undefined) {
      const left = unjudged.get(name) ?? 0;
      const inconclusive = base.judged === 0 && left > 0;
      const skipReason = inconclusive ? `none of its ${left} requests got a judgeable answer` : undefined;
      const outcome = inconclusive ? "inconclusive" : base.waived > 0 ? "waived" : "passed";
      results.push({ ...base, outcome, durationMs: Math.round(spent.get(name) ?? 0), skipReason });
      continue;
    }
    const shrinkStarted = performance.now();
    const smallest = options.shrinkTimeLimitMs > 0 ? await shrink(name, failure) : failure;
    results.push({
      ...base,
      outcome: "failed",
      status: smallest.exchange.response?.status ?? smallest.exchange.status,
      problem: smallest.problem,
      reproduction: { request: describeRequest(smallest.exchange.request), curl: curlCommand(options.baseUrl, smallest.exchange.request) },
      durationMs: Math.round((spent.get(name) ?? 0) + performance.now() - shrinkStarted),
    });
  }
  return { results, sent, discarded };

  /**
   * Replays the failing run (same seed, its path) and lets fast-check shrink it against the live
   * target; a target that no longer fails keeps the original request.
   */
  async function shrink(check: CheckName, failure: Failure): Promise<Failure> {
    let smallest = failure;
    await fc.check(
      fc.asyncProperty(arbitrary, async (request) => {
        fc.pre(safe(request) && withinBudget(request));
        const exchange = await send(options, request);
        sent++;
        if (request.kind === "positive") budget?.spend(exchange.response?.status ?? exchange.status);
        const problem = judge(options.contract, exchange, options.maxResponseMs)[check];
        // A failure a waiver accepts is no smaller form of the one being shrunk.
        if (problem === undefined || waivers.find("check", check, finding(exchange, problem.path)) !== undefined) return true;
        smallest = { runIndex: failure.runIndex, exchange, problem };
        return false;
      }),
      { seed: options.seed, path: String(failure.runIndex), examples, interruptAfterTimeLimit: options.shrinkTimeLimitMs },
    );
    return smallest;
  }
}
