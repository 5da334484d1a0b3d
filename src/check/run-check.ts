// Runs the battery of `sendmock check` against a base URL and judges every response: the case's
// own expectation, the requested shape, and the chosen contract (published, sendmock or a file);
// then, if asked, the generated requests and their named checks (run-generated). Every request
// goes through one transport that paces it and waits out 429s; a response that cannot be judged is
// reported as inconclusive, never as a verdict; a finding a waiver accepts is reported as waived; a
// request that could deliver mail goes only while the --max-sends budget lasts. Returns the report
// (or, for --dry-run, the plan); prints nothing.

import { randomInt, randomUUID } from "node:crypto";
import { chooseContract, type ContractChoice } from "../contract/choice.js";
import type { ContractChecker } from "../contract/check.js";
import type { ExplainedViolation } from "../errors.js";
import { parseJson } from "../domain/json.js";
import { CASES, IDEMPOTENCY_CASE, type CaseInputs, type CheckCase } from "./cases.js";
import { BROKE_OFF } from "./named-checks.js";
import { curlCommand, plannedRequests, runGenerated, type Reproduction } from "./run-generated.js";
import { DEFAULT_MAX_SENDS, SendBudget, type BudgetUse } from "./budget.js";
import { Waivers, type Waiver } from "./waivers.js";
import type { HttpResponse } from "../response.js";
import { apiKeyHint } from "../domain/api-keys.js";
import { printable } from "../domain/printable.js";
import { createTransport, unsendableKey, type Delivery, type InconclusiveTally, type OutgoingRequest, type Pace, type Transport } from "./transport.js";

export type ShapeOption = "a" | "b" | "any";

export interface CheckOptions {
  /** Base URL of the implementation; `POST {baseUrl}/send` is what gets checked. */
  baseUrl: string;
  apiKey: string;
  /** What the target is judged by: `published` (default, openapi/service.yaml), `sendmock` (openapi/send.yaml) or an OpenAPI 3.x file. */
  contract?: ContractChoice;
  /** An existing template for the cases (default `welcome`). */
  templateId?: string;
  /** Placeholder values; default: the template's sample_data when the target is a sendmock, else `{}`. */
  data?: Record<string, unknown>;
  /** Runs the case that delivers mail; needs `recipient`. */
  allowSend?: boolean;
  recipient?: string;
  /** With `allowSend`: at most this many sends the target accepts in the run (default 20); a request that could deliver mail is not sent once they are spent. */
  maxSends?: number;
  /** Findings the team accepts (`--skip-check`, `--ignore FILE`): reported as waived, never as failed. */
  waivers?: readonly Waiver[];
  shape?: ShapeOption;
  /** Per request (default 10 s). */
  timeoutMs?: number;
  /** How often a 429 is waited out (its Retry-After, 1 s when absent) and the request sent again (default 3). */
  maxRetries?: number;
  /** The longest Retry-After waited for; a longer one leaves the request rate limited at once (default 60 s). */
  maxRetryWaitMs?: number;
  /** At most this many requests started per period, as `--rate-limit 10/s` (default: no pacing). */
  pace?: Pace;
  /** After this many inconclusive requests in a row the rest are not sent (default 10). */
  maxInconclusive?: number;
  /** The most of a response body read, in decoded bytes; a longer one fails its case or check, and its connection is dropped (default 1 MB). */
  maxBodyBytes?: number;
  /** After this many requests in a row timed out, the rest of the run is not sent (default 3; 0 never stops). */
  maxTimeouts?: number;
  /** Called as each case finishes, for progress output. */
  onResult?: (result: CheckResult) => void;
  /** Only these case ids (default: all). */
  only?: string[];
  /** Requests to generate from the contract after the fixed cases, each judged by the named checks (default 0: none). */
  generate?: number;
  /** Seeds the generated requests: the same seed draws the same requests (default: a random one, given to `onGeneration`). */
  seed?: number;
  /** Runs the `max_response_time` check: a response slower than this fails it. */
  maxResponseMs?: number;
  /** How long shrinking one failure may take before its smallest request so far is kept (default 30 s). */
  shrinkTimeLimitMs?: number;
  /** Called once the contract is loaded, before the first request: its name as printed. */
  onContract?: (label: string) => void;
  /** Called before the generated requests are sent: the seed that replays them, the coverage pass's size and `generate`. */
  onGeneration?: (run: { seed: number; coverage: number; random: number }) => void;
  /** Called after each generated request. */
  onGeneratedProgress?: (done: number, total: number) => void;
}

export interface CheckResult {
  id: string;
  name: string;
  /** `inconclusive`: no response it was given could be judged (rate limited, the key refused); `waived`: every problem it found, a waiver accepted. */
  outcome: "passed" | "failed" | "skipped" | "inconclusive" | "waived";
  /** The HTTP status; undefined when there was no response (or the case was skipped). */
  status?: number;
  /** What the case expects, as shown: `4xx` or `2xx`. */
  expected: string;
  /** Every problem found, own expectations first; empty when passed. */
  problems: ExplainedViolation[];
  durationMs: number;
  /** Why a case was skipped, or why it is inconclusive. */
  skipReason?: string;
  /** For a named check: how many generated requests it judged. */
  judged?: number;
  /** The problems (a case's) or failing requests (a named check's) a waiver accepted. */
  waived?: number;
  /** A named check's failure brought down to its smallest request, with a curl line that sends it again. */
  reproduction?: Reproduction;
}

export interface CheckReport {
  /** The contract the target was judged by, as printed: `published (openapi/service.yaml)`. */
  contract: string;
  /** The whole run, start to end, pacing and retries included: the JUnit file's time. */
  durationMs: number;
  results: CheckResult[];
  /** Requests left without a judgeable response, by why: any of them fails the run. */
  inconclusive: Readonly<InconclusiveTally>;
  /** With --allow-send: the real-mail budget and what the run spent of it. */
  sends?: BudgetUse;
  /** Every waiver with what it waived; one that waived nothing is stale. */
  waivers: { waiver: Waiver; findings: number }[];
}

/** One request `--dry-run` shows: what it is for, whether it can deliver mail, the request and the curl line that sends it. */
export interface PlannedRequest {
  label: string;
  delivers: boolean;
  request: OutgoingRequest;
  curl: string;
}

export interface CheckPlan {
  contract: string;
  /** The seed of the generated part, absent without one. */
  seed?: number;
  requests: PlannedRequest[];
  /** Drawn requests that would not be sent (a negative the contract turned out to accept). */
  discarded: number;
  /** With --allow-send: the --max-sends budget the requests that deliver would draw on. */
  maxSends?: number;
}

/** The target could not be reached at all (first request failed to connect). */
export class UnreachableError extends Error {
  override name = "UnreachableError";
}

type Shape = "a" | "b";

function shapeOf(body: unknown): Shape | undefined {
  if (body === null || typeof body !== "object" || Array.isArray(body)) return undefined;
  const record = body as Record<string, unknown>;
  if ("success" in record) return "a";
  if (record.status === "success" || record.status === "error") return "b";
  return undefined;
}

function urlOf(baseUrl: string, path: string): string {
  return `${baseUrl.replace(/\/+$/, "")}${path}`;
}

/** The error's code and message where the body shows them: `error.code` and `error.message` in shape a, `message` in shape b. */
function errorOf(body: unknown): { code?: unknown; message?: unknown } {
  const shape = shapeOf(body);
  if (shape === "a") return (body as { error?: { code?: unknown; message?: unknown } }).error ?? {};
  if (shape === "b") return { message: (body as { message?: unknown }).message };
  return {};
}

/** Own expectations of a case: status class, error code and message where visible, tracking id. */
function expectationProblems(testCase: CheckCase, response: HttpResponse, body: unknown): ExplainedViolation[] {
  const { status } = response;
  const expect = testCase.expect;
  if (expect.status === "2xx") {
    if (status < 200 || status > 299) return [{ path: "/status", message: `the send was not accepted (${status})`, expected: "2xx", actual: String(status) }];
    const record = (body ?? {}) as Record<string, unknown>;
    const id = record.message_id ?? record.email_id;
    if (typeof id === "string" && id !== "") return [];
    return [
      {
        path: shapeOf(body) === "b" ? "/body/email_id" : "/body/message_id",
        message: "no tracking id (message_id or email_id)",
        expected: "a non-empty message_id or email_id",
        actual: id === undefined ? "absent" : JSON.stringify(id),
      },
    ];
  }
  if (status < 400 || status > 499) {
    const why = status < 300 ? "the server accepted a request it must refuse" : "the server did not answer with a client error";
    return [{ path: "/status", message: why, expected: "4xx", actual: String(status) }];
  }
  const problems: ExplainedViolation[] = [];
  const error = errorOf(body);
  if (expect.errorCode !== undefined) {
    if (error.code !== undefined && error.code !== expect.errorCode) {
      problems.push({ path: "/body/error/code", message: "wrong error code", expected: expect.errorCode, actual: JSON.stringify(error.code) });
    }
    const header = response.headers["x-sendmock-error-code"];
    if (header !== undefined && header !== expect.errorCode) {
      problems.push({ path: "/headers/x-sendmock-error-code", message: "wrong error code", expected: expect.errorCode, actual: header });
    }
  }
  const word = expect.messageMentions;
  if (word !== undefined && typeof error.message === "string" && !error.message.toLowerCase().includes(word)) {
    const path = shapeOf(body) === "a" ? "/body/error/message" : "/body/message";
    problems.push({
      path,
      message: `the message does not mention the ${word}`,
      expected: `a message about the ${word}`,
      actual: JSON.stringify(error.message),
    });
  }
  return problems;
}

/**
 * The template's sample_data when the target is a sendmock (`GET /_mock/templates/{id}`); else `{}`.
 * Asked through the transport, so its body is bounded and a silent target's first timeout counts.
 */
async function sampleData(transport: Transport, templateId: string): Promise<Record<string, unknown>> {
  const delivery = await transport.probe(`/_mock/templates/${encodeURIComponent(templateId)}`);
  if (delivery.kind !== "response" || delivery.response.status < 200 || delivery.response.status > 299) return {};
  const parsed = parseJson(delivery.response.body);
  const data = parsed.ok ? (parsed.value as { sample_data?: unknown } | null)?.sample_data : undefined;
  return data !== null && typeof data === "object" && !Array.isArray(data) ? (data as Record<string, unknown>) : {};
}

/** A case or check that got no judgeable response: why, as a problem and a reason. */
function inconclusiveResult(base: { id: string; name: string; expected: string }, delivery: Delivery & { kind: "inconclusive" }): CheckResult {
  return {
    ...base,
    outcome: "inconclusive",
    status: delivery.response?.status,
    problems: [
      {
        path: "/status",
        message: delivery.detail,
        expected: "a judgeable answer",
        actual: delivery.response === undefined ? "not sent" : String(delivery.response.status),
      },
    ],
    durationMs: delivery.durationMs,
    skipReason: delivery.detail,
  };
}

/** The contract, the transport and the cases' inputs: what a run and its plan both start from. */
async function prepare(options: CheckOptions) {
  if (options.allowSend === true && (options.recipient === undefined || options.recipient === "")) {
    throw new Error("allowSend needs a recipient");
  }
  if (options.allowSend === true && options.maxSends !== undefined && !(Number.isInteger(options.maxSends) && options.maxSends >= 1))
    throw new Error("maxSends must be a whole number, at least 1: with none, allowSend would send nothing");
  const unsendable = unsendableKey(options.apiKey);
  // fetch's own error would quote the whole key.
  if (unsendable !== undefined)
    throw new Error(`the API key …${printable(apiKeyHint(options.apiKey))} holds a character an Authorization header cannot carry (${unsendable})`);
  const chosen = await chooseContract(options.contract);
  options.onContract?.(chosen.label);
  const transport = createTransport({
    baseUrl: options.baseUrl,
    apiKey: options.apiKey,
    timeoutMs: options.timeoutMs ?? 10_000,
    maxRetries: options.maxRetries,
    maxRetryWaitMs: options.maxRetryWaitMs,
    pace: options.pace,
    maxInconclusive: options.maxInconclusive,
    maxBodyBytes: options.maxBodyBytes,
    maxTimeouts: options.maxTimeouts,
  });
  const templateId = options.templateId ?? "welcome";
  const inputs: CaseInputs = {
    templateId,
    data: options.data ?? (await sampleData(transport, templateId)),
    recipient: options.recipient ?? "",
  };
  return { label: chosen.label, contract: chosen.checker, transport, inputs };
}

/** The case's request as sent. */
function outgoing(testCase: CheckCase, inputs: CaseInputs): OutgoingRequest {
  const request = testCase.request(inputs);
  const body = request.raw === true ? String(request.body) : JSON.stringify(request.body);
  return { method: "POST", authorization: request.authorization, contentType: request.contentType ?? "application/json", body };
}

/** The case's request as a waiver's `match.request` looks in it, as a generated one is shown: `(missing to) POST /send {…}`. */
const caseLine = (name: string, request: OutgoingRequest): string => `(${name}) ${request.method} /send ${request.body ?? ""}`;

/** The cases a run with these options sends, and whether the contract asks for each. */
function casesToRun(options: CheckOptions, contract: ContractChecker): { testCase: CheckCase; skipReason?: string }[] {
  return CASES.filter((testCase) => !options.only || options.only.includes(testCase.id)).map((testCase) => ({
    testCase,
    skipReason:
      testCase.sends && options.allowSend !== true
        ? "delivers mail: needs --allow-send --recipient ADDR"
        : testCase.condition !== undefined && !testCase.condition.applies(contract.requestSchema)
          ? testCase.condition.reason
          : undefined,
  }));
}

/** The two sends of the idempotency case: one message, one Idempotency-Key. */
function idempotentSend(inputs: CaseInputs, key: string): OutgoingRequest {
  const body = JSON.stringify({ to: inputs.recipient, template_id: inputs.templateId, data: inputs.data });
  return { method: "POST", authorization: undefined, contentType: "application/json", body, headers: { "Idempotency-Key": key } };
}

/**
 * What `runCheck` with these options would send, in order, sending nothing to `/send` (`--dry-run`);
 * the template's sample data is read from a sendmock as the run reads it, so the plan is the run's.
 */
export async function planCheck(options: CheckOptions): Promise<CheckPlan> {
  const { label, contract, inputs } = await prepare(options);
  const planned = (label: string, delivers: boolean, request: OutgoingRequest): PlannedRequest => ({
    label,
    delivers,
    request,
    curl: curlCommand(options.baseUrl, request),
  });
  const requests: PlannedRequest[] = casesToRun(options, contract)
    .filter(({ skipReason }) => skipReason === undefined)
    .map(({ testCase }) => planned(testCase.name, testCase.sends, outgoing(testCase, inputs)));
  if (options.allowSend === true && (!options.only || options.only.includes(IDEMPOTENCY_CASE.id))) {
    const twice = idempotentSend(inputs, "sendmock-check-<a new UUID each run>");
    requests.push(planned(`${IDEMPOTENCY_CASE.name} (1 of 2)`, true, twice), planned(`${IDEMPOTENCY_CASE.name} (2 of 2)`, true, twice));
  }
  const count = options.generate ?? 0;
  const maxSends = options.allowSend === true ? (options.maxSends ?? DEFAULT_MAX_SENDS) : undefined;
  if (count === 0) return { contract: label, requests, discarded: 0, maxSends };
  const seed = options.seed ?? randomInt(2 ** 31);
  const generated = plannedRequests(contract, { ...inputs, recipient: options.allowSend === true ? inputs.recipient : undefined }, count, seed);
  for (const request of generated.requests) requests.push(planned(`generated (${request.defect})`, request.kind === "positive", request));
  return { contract: label, seed, requests, discarded: generated.discarded, maxSends };
}

export async function runCheck(options: CheckOptions): Promise<CheckReport> {
  const wanted = options.shape ?? "any";
  const { label, contract, transport, inputs } = await prepare(options);
  const budget = options.allowSend === true ? new SendBudget(options.maxSends ?? DEFAULT_MAX_SENDS) : undefined;
  const waivers = new Waivers(options.waivers);
  const started = performance.now();
  const results: CheckResult[] = [];
  const report = (result: CheckResult): void => {
    results.push(result);
    options.onResult?.(result);
  };
  /** A case's result with its wall time: its sends, their pacing and retries, and the reads that judged them. */
  const timed = async (run: () => Promise<CheckResult>): Promise<CheckResult> => {
    const caseStarted = performance.now();
    const result = await run();
    return { ...result, durationMs: Math.round(performance.now() - caseStarted) };
  };

  for (const { testCase, skipReason } of casesToRun(options, contract)) {
    const base = { id: testCase.id, name: testCase.name, expected: testCase.expect.status, problems: [], durationMs: 0 };
    if (skipReason !== undefined) report({ ...base, outcome: "skipped", skipReason });
    else if (testCase.sends && budget?.allows() === false) report({ ...base, outcome: "skipped", skipReason: withheld() });
    else report(await timed(() => runCase(testCase)));
  }
  if (options.allowSend === true && (!options.only || options.only.includes(IDEMPOTENCY_CASE.id))) report(await timed(runIdempotencyCase));
  if ((options.generate ?? 0) > 0) await runNamedChecks(options.generate ?? 0);
  return {
    contract: label,
    durationMs: Math.round(performance.now() - started),
    results,
    inconclusive: transport.inconclusive,
    sends: budget?.use(),
    waivers: waivers.tally(),
  };

  /** Keeps `requests` that would deliver mail back, the budget being spent, and says why, for the skipped case. */
  function withheld(requests = 1): string {
    budget?.withhold(requests);
    return `delivers mail: the --max-sends budget of ${budget?.use().max ?? 0} was spent`;
  }

  /** The case's result with the problems a waiver accepts taken out: `waived` when none is left. */
  function waive(result: CheckResult, line: string): CheckResult {
    if (result.outcome !== "failed") return result;
    const left = result.problems.filter(
      (problem) => waivers.waive("case", result.id, { request: line, pointer: problem.path, status: result.status }) === undefined,
    );
    const waived = result.problems.length - left.length;
    if (waived === 0) return result;
    return left.length === 0 ? { ...result, outcome: "waived", problems: [], waived } : { ...result, problems: left, waived };
  }
  async function runNamedChecks(count: number): Promise<void> {
    const seed = options.seed ?? randomInt(2 ** 31);
    const run = await runGenerated({
      baseUrl: options.baseUrl,
      transport,
      contract,
      budget,
      waivers,
      inputs: { ...inputs, recipient: options.allowSend === true ? inputs.recipient : undefined },
      count,
      seed,
      maxResponseMs: options.maxResponseMs,
      shrinkTimeLimitMs: options.shrinkTimeLimitMs ?? 30_000,
      onStart: (passes) => options.onGeneration?.({ seed, ...passes }),
      onProgress: options.onGeneratedProgress,
    });
    for (const named of run.results) {
      report({
        id: named.name,
        name: named.name,
        outcome: named.outcome,
        status: named.status,
        expected: named.expected,
        problems: named.problem === undefined ? [] : [named.problem],
        durationMs: named.durationMs,
        skipReason: named.skipReason,
        reproduction: named.reproduction,
        judged: named.judged,
        waived: named.waived,
      });
    }
  }

  /** One POST /send with an Idempotency-Key, counted against the budget. */
  async function sendWithKey(key: string): Promise<Delivery> {
    const delivery = await transport.send(idempotentSend(inputs, key));
    // A replay sent nothing new.
    if (delivery.kind !== "response" || delivery.response.headers["idempotency-replayed"] !== "true")
      budget?.spend(delivery.kind === "no_response" ? undefined : delivery.response?.status);
    return delivery;
  }

  /**
   * Sends one message twice with one Idempotency-Key: the second response should replay the first.
   * A target that ignores the key (a new tracking id, no Idempotency-Replayed) is reported as not
   * supporting keys, not as failing: the service's spec does not promise them.
   */
  async function runIdempotencyCase(): Promise<CheckResult> {
    const started = performance.now();
    const base = { ...IDEMPOTENCY_CASE, expected: "2xx replayed" };
    // Two sends: both must fit, as the service may take the second for a new message.
    if (budget !== undefined && budget.use().max - budget.use().used < 2)
      return { ...base, outcome: "skipped", problems: [], durationMs: 0, skipReason: withheld(2) };
    const key = `sendmock-check-${randomUUID()}`;
    const first = await sendWithKey(key);
    const accepted = first.kind === "response" && first.response.status >= 200 && first.response.status <= 299;
    const second = accepted ? await sendWithKey(key) : undefined;
    const durationMs = Math.round(performance.now() - started);
    for (const delivery of [first, second]) if (delivery?.kind === "inconclusive") return inconclusiveResult(base, delivery);
    if (first.kind !== "response" || second?.kind !== "response") {
      const actual = first.kind === "response" ? String(first.response.status) : "no answer";
      return {
        ...base,
        outcome: "failed",
        problems: [
          {
            path: "/status",
            message: "the send with an Idempotency-Key was not accepted",
            expected: "2xx",
            actual: second === undefined ? actual : "no answer",
          },
        ],
        durationMs,
      };
    }
    const trackingId = (response: HttpResponse): unknown => {
      const json = parseJson(response.body);
      const record = (json.ok && json.value !== null && typeof json.value === "object" ? json.value : {}) as Record<string, unknown>;
      return record.message_id ?? record.email_id;
    };
    const [firstId, secondId] = [trackingId(first.response), trackingId(second.response)];
    const replayed = second.response.headers["idempotency-replayed"] === "true";
    const status = second.response.status;
    // The same id is one message, marked as a replay or not.
    if (status === first.response.status && secondId !== undefined && secondId === firstId)
      return { ...base, outcome: "passed", status, problems: [], durationMs };
    if (status >= 200 && status <= 299 && !replayed) {
      return { ...base, outcome: "skipped", status, problems: [], durationMs, skipReason: "not supported: the target sent the message again under a new id" };
    }
    const actual = `${status}, ${replayed ? "" : "no "}Idempotency-Replayed, id ${JSON.stringify(secondId)} after ${JSON.stringify(firstId)}`;
    return {
      ...base,
      outcome: "failed",
      status,
      problems: [
        {
          path: "",
          message: "the repeated send did not replay the first answer",
          expected: "the first answer's status and id, Idempotency-Replayed: true",
          actual,
        },
      ],
      durationMs,
    };
  }

  async function runCase(testCase: CheckCase): Promise<CheckResult> {
    const request = outgoing(testCase, inputs);
    const base = { id: testCase.id, name: testCase.name, expected: testCase.expect.status };
    const delivery = await transport.send(request);
    if (testCase.sends) budget?.spend(delivery.kind === "no_response" ? undefined : delivery.response?.status);
    return waive(judgeCase(testCase, base, delivery), caseLine(testCase.name, request));
  }

  function judgeCase(testCase: CheckCase, base: { id: string; name: string; expected: string }, delivery: Delivery): CheckResult {
    if (delivery.kind === "inconclusive") return inconclusiveResult(base, delivery);
    if (delivery.kind === "no_response") {
      if (!transport.responded && delivery.connectionError) {
        throw new UnreachableError(`cannot reach ${urlOf(options.baseUrl, "/send")}: ${delivery.failure}`);
      }
      // A target that answered and then broke (closed mid-body, a body past --max-body-bytes) failed the case; it is not one that cannot be reached.
      const problem = delivery.answered
        ? { path: "", message: BROKE_OFF, expected: "a whole answer", actual: delivery.failure }
        : { path: "", message: `no answer: ${delivery.failure}`, expected: "an answer", actual: delivery.failure };
      return { ...base, outcome: "failed", status: delivery.status, problems: [problem], durationMs: delivery.durationMs };
    }
    const { response } = delivery;
    const json = parseJson(response.body);
    const parsed = json.ok ? json.value : undefined;
    const problems = expectationProblems(testCase, response, parsed);
    const shape = shapeOf(parsed);
    if (wanted !== "any" && shape !== undefined && shape !== wanted) {
      problems.push({
        path: "/body",
        message: `the answer is in shape ${shape}, not the shape ${wanted} asked for`,
        expected: `shape ${wanted}`,
        actual: `shape ${shape}`,
      });
    }
    // The same finding from both sides (an undocumented status, a missing id) is reported once.
    const seen = new Set(problems.map((problem) => `${problem.path} ${problem.actual}`));
    for (const violation of contract.checkResponse(response)) {
      if (!seen.has(`${violation.path} ${violation.actual}`)) problems.push(violation);
    }
    return { ...base, outcome: problems.length === 0 ? "passed" : "failed", status: response.status, problems, durationMs: delivery.durationMs };
  }
}
