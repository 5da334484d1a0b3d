// Runs the battery of `sendmock check` against a base URL and judges every answer: the case's
// own expectation, the requested shape, and openapi/send.yaml; then, if asked, the generated
// requests and their named checks (run-generated). Returns results; prints nothing.

import { createContractChecker } from "../contract/check.js";
import type { ContractViolation } from "../contract/violations.js";
import { loadContract, SEND_CONTRACT } from "../contract/load.js";
import { randomInt, randomUUID } from "node:crypto";
import { CASES, IDEMPOTENCY_CASE, type CheckCase, type CaseInputs } from "./cases.js";
import { parseJson } from "../domain/json.js";
import { runGenerated, type Reproduction } from "./run-generated.js";

export type ShapeOption = "a" | "b" | "any";

export interface CheckOptions {
  /** Base URL of the implementation; `POST {baseUrl}/send` is what gets checked. */
  baseUrl: string;
  apiKey: string;
  /** An existing template for the cases (default `welcome`). */
  templateId?: string;
  /** Placeholder values; default: the template's sample_data when the target is a sendmock, else `{}`. */
  data?: Record<string, unknown>;
  /** Runs the case that delivers mail; needs `recipient`. */
  allowSend?: boolean;
  recipient?: string;
  shape?: ShapeOption;
  /** Per request (default 10 s). */
  timeoutMs?: number;
  /** Called as each case finishes, for progress output. */
  onResult?: (result: CheckResult) => void;
  /** Only these case ids (default: all). */
  only?: string[];
  /** Requests to generate from send.yaml after the fixed cases, each judged by the named checks (default 0: none). */
  generate?: number;
  /** Seeds the generated requests: the same seed draws the same requests (default: a random one, given to `onGeneration`). */
  seed?: number;
  /** Runs the `max_response_time` check: an answer slower than this fails it. */
  maxResponseMs?: number;
  /** How long shrinking one failure may take before its smallest request so far is kept (default 30 s). */
  shrinkTimeLimitMs?: number;
  /** Called before the generated requests are sent: the seed that replays them, the coverage pass's size and `generate`. */
  onGeneration?: (run: { seed: number; coverage: number; random: number }) => void;
  /** Called after each generated request. */
  onGeneratedProgress?: (done: number, total: number) => void;
}

export interface CheckResult {
  id: string;
  name: string;
  outcome: "passed" | "failed" | "skipped";
  /** The HTTP status; undefined when there was no answer (or the case was skipped). */
  status?: number;
  /** What the case expects, as shown: `4xx` or `200`. */
  expected: string;
  /** Every problem found, own expectations first; empty when passed. */
  problems: ContractViolation[];
  durationMs: number;
  skipReason?: string;
  /** For a named check: how many generated requests it judged. */
  judged?: number;
  /** A named check's failure brought down to its smallest request, with a curl line that sends it again. */
  reproduction?: Reproduction;
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

/** Own expectations of a case: status class, error code where visible, tracking id. */
function expectationProblems(testCase: CheckCase, status: number, headers: Record<string, string | undefined>, body: unknown): ContractViolation[] {
  const problems: ContractViolation[] = [];
  const expect = testCase.expect;
  if (expect.status === 200) {
    if (status !== 200) {
      problems.push({ path: "/status", message: `the send was not accepted (${status})`, expected: "200", actual: String(status) });
      return problems;
    }
    const record = (body ?? {}) as Record<string, unknown>;
    const id = record.message_id ?? record.email_id;
    if (typeof id !== "string" || id === "") {
      problems.push({
        path: shapeOf(body) === "b" ? "/email_id" : "/message_id",
        message: "no tracking id (message_id or email_id)",
        expected: "a non-empty message_id or email_id",
        actual: id === undefined ? "absent" : JSON.stringify(id),
      });
    }
    return problems;
  }
  if (status < 400 || status > 499) {
    const why = status < 300 ? "the server accepted a request it must refuse" : "the server did not answer with a client error";
    problems.push({ path: "/status", message: why, expected: "4xx", actual: String(status) });
    return problems;
  }
  if (status === 429) {
    problems.push({ path: "/status", message: "rate limited, so the case proved nothing", expected: "4xx other than 429", actual: "429" });
  } else if ((status === 401 || status === 403) && expect.authRejectionOk !== true) {
    problems.push({
      path: "/status",
      message: "the API key was rejected, so the case proved nothing (pass a working --api-key)",
      expected: "4xx other than 401/403",
      actual: String(status),
    });
  }
  if (expect.errorCode !== undefined) {
    const shown = shapeOf(body) === "a" ? (body as { error?: { code?: unknown } }).error?.code : undefined;
    if (shown !== undefined && shown !== expect.errorCode) {
      problems.push({ path: "/error/code", message: "wrong error code", expected: expect.errorCode, actual: JSON.stringify(shown) });
    }
    const header = headers["x-sendmock-error-code"];
    if (header !== undefined && header !== expect.errorCode) {
      problems.push({ path: "/headers/x-sendmock-error-code", message: "wrong error code", expected: expect.errorCode, actual: header });
    }
  }
  return problems;
}

function describeFetchError(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError")) return `timed out after ${timeoutMs} ms`;
  const cause = (error as { cause?: { code?: string; message?: string } } | undefined)?.cause;
  return cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
}

/** A network failure other than a timeout: refused, no such host, reset, a port fetch blocks. */
function isConnectionError(error: unknown): boolean {
  return error instanceof TypeError;
}

/** The template's sample_data when the target is a sendmock (`GET /_mock/templates/{id}`); else `{}`. */
async function sampleData(baseUrl: string, templateId: string, timeoutMs: number): Promise<Record<string, unknown>> {
  try {
    const answer = await fetch(urlOf(baseUrl, `/_mock/templates/${encodeURIComponent(templateId)}`), { signal: AbortSignal.timeout(timeoutMs) });
    if (!answer.ok) return {};
    const detail = (await answer.json()) as { sample_data?: unknown };
    const data = detail.sample_data;
    return data !== null && typeof data === "object" && !Array.isArray(data) ? (data as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

export async function runCheck(options: CheckOptions): Promise<CheckResult[]> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const wanted = options.shape ?? "any";
  if (options.allowSend === true && (options.recipient === undefined || options.recipient === "")) {
    throw new Error("allowSend needs a recipient");
  }
  const contract = await createContractChecker(await loadContract(SEND_CONTRACT));
  const templateId = options.templateId ?? "welcome";
  const inputs: CaseInputs = {
    templateId,
    data: options.data ?? (await sampleData(options.baseUrl, templateId, timeoutMs)),
    recipient: options.recipient ?? "",
  };
  const results: CheckResult[] = [];
  let answered = false;

  for (const testCase of CASES) {
    if (options.only && !options.only.includes(testCase.id)) continue;
    const expected = String(testCase.expect.status);
    let result: CheckResult;
    if (testCase.sends && options.allowSend !== true) {
      result = {
        id: testCase.id,
        name: testCase.name,
        outcome: "skipped",
        expected,
        problems: [],
        durationMs: 0,
        skipReason: "delivers mail: needs --allow-send --recipient ADDR",
      };
    } else {
      result = await runCase(testCase);
    }
    results.push(result);
    options.onResult?.(result);
  }
  if (options.allowSend === true && (!options.only || options.only.includes(IDEMPOTENCY_CASE.id))) {
    const result = await runIdempotencyCase();
    results.push(result);
    options.onResult?.(result);
  }
  if ((options.generate ?? 0) > 0) await runNamedChecks(options.generate ?? 0);
  return results;

  async function runNamedChecks(count: number): Promise<void> {
    const seed = options.seed ?? randomInt(2 ** 31);
    const run = await runGenerated({
      baseUrl: options.baseUrl,
      apiKey: options.apiKey,
      contract,
      inputs: { ...inputs, recipient: options.allowSend === true ? inputs.recipient : undefined },
      count,
      seed,
      maxResponseMs: options.maxResponseMs,
      timeoutMs,
      shrinkTimeLimitMs: options.shrinkTimeLimitMs ?? 30_000,
      onStart: (passes) => options.onGeneration?.({ seed, ...passes }),
      onProgress: options.onGeneratedProgress,
    });
    for (const named of run.results) {
      const result: CheckResult = {
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
      };
      results.push(result);
      options.onResult?.(result);
    }
  }

  /** One POST /send with an Idempotency-Key; undefined when the request got no answer. */
  async function sendWithKey(key: string): Promise<{ status: number; replayed: boolean; trackingId: unknown } | undefined> {
    try {
      const answer = await fetch(urlOf(options.baseUrl, "/send"), {
        method: "POST",
        headers: { "Content-Type": "application/json", Authorization: `Bearer ${options.apiKey}`, "Idempotency-Key": key },
        body: JSON.stringify({ to: inputs.recipient, template_id: inputs.templateId, data: inputs.data }),
        redirect: "manual",
        signal: AbortSignal.timeout(timeoutMs),
      });
      const json = parseJson(await answer.text());
      const record = (json.ok && json.value !== null && typeof json.value === "object" ? json.value : {}) as Record<string, unknown>;
      return { status: answer.status, replayed: answer.headers.get("idempotency-replayed") === "true", trackingId: record.message_id ?? record.email_id };
    } catch {
      return undefined;
    }
  }

  /**
   * Sends one message twice with one Idempotency-Key: the second answer should replay the first.
   * A target that ignores the key (a new tracking id, no Idempotency-Replayed) is reported as not
   * supporting keys, not as failing: the service's spec does not promise them.
   */
  async function runIdempotencyCase(): Promise<CheckResult> {
    const started = performance.now();
    const base = { ...IDEMPOTENCY_CASE, expected: "200 replayed" };
    const key = `sendmock-check-${randomUUID()}`;
    const first = await sendWithKey(key);
    const second = first?.status === 200 ? await sendWithKey(key) : undefined;
    const durationMs = Math.round(performance.now() - started);
    if (first === undefined || second === undefined) {
      const actual = first === undefined || first.status === 200 ? "no answer" : String(first.status);
      return {
        ...base,
        outcome: "failed",
        problems: [{ path: "/status", message: "the send with an Idempotency-Key was not answered 200", expected: "200", actual }],
        durationMs,
      };
    }
    // The same id is one message, marked as a replay or not.
    if (second.status === 200 && second.trackingId !== undefined && second.trackingId === first.trackingId) {
      return { ...base, outcome: "passed", status: 200, problems: [], durationMs };
    }
    if (second.status === 200 && !second.replayed) {
      return {
        ...base,
        outcome: "skipped",
        status: 200,
        problems: [],
        durationMs,
        skipReason: "not supported: the target sent the message again under a new id",
      };
    }
    const actual = `${second.status}, ${second.replayed ? "" : "no "}Idempotency-Replayed, id ${JSON.stringify(second.trackingId)} after ${JSON.stringify(first.trackingId)}`;
    return {
      ...base,
      outcome: "failed",
      status: second.status,
      problems: [
        { path: "", message: "the repeated send did not replay the first answer", expected: "200 with the first id and Idempotency-Replayed: true", actual },
      ],
      durationMs,
    };
  }

  async function runCase(testCase: CheckCase): Promise<CheckResult> {
    const request = testCase.request(inputs);
    const headers: Record<string, string> = { "Content-Type": request.contentType ?? "application/json" };
    if (request.authorization !== null) headers.Authorization = request.authorization ?? `Bearer ${options.apiKey}`;
    const body = request.raw === true ? String(request.body) : JSON.stringify(request.body);
    const started = performance.now();
    const base = { id: testCase.id, name: testCase.name, expected: String(testCase.expect.status) };
    let status: number;
    let answerHeaders: Record<string, string>;
    let text: string;
    try {
      const answer = await fetch(urlOf(options.baseUrl, "/send"), {
        method: "POST",
        headers,
        body,
        redirect: "manual",
        signal: AbortSignal.timeout(timeoutMs),
      });
      status = answer.status;
      answerHeaders = Object.fromEntries(answer.headers);
      text = await answer.text();
    } catch (error) {
      if (!answered && isConnectionError(error)) {
        throw new UnreachableError(`cannot reach ${urlOf(options.baseUrl, "/send")}: ${describeFetchError(error, timeoutMs)}`);
      }
      const reason = describeFetchError(error, timeoutMs);
      const problem = { path: "", message: `no answer: ${reason}`, expected: "an answer", actual: reason };
      return { ...base, outcome: "failed", problems: [problem], durationMs: Math.round(performance.now() - started) };
    }
    answered = true;
    const json = parseJson(text);
    const parsed = json.ok ? json.value : undefined;
    const problems = expectationProblems(testCase, status, answerHeaders, parsed);
    const shape = shapeOf(parsed);
    if (wanted !== "any" && shape !== undefined && shape !== wanted) {
      problems.push({
        path: "",
        message: `the answer is in shape ${shape}, not the shape ${wanted} asked for`,
        expected: `shape ${wanted}`,
        actual: `shape ${shape}`,
      });
    }
    // The same finding from both sides (an undocumented status, a missing id) is reported once.
    const seen = new Set(problems.map((problem) => `${problem.path} ${problem.actual}`));
    for (const violation of contract.checkAnswer({ status, headers: answerHeaders, body: text })) {
      if (!seen.has(`${violation.path} ${violation.actual}`)) problems.push(violation);
    }
    return { ...base, outcome: problems.length === 0 ? "passed" : "failed", status, problems, durationMs: Math.round(performance.now() - started) };
  }
}
