// How `sendmock check` sends each request to the target: paced by --rate-limit, a 429 waited out
// and sent again up to --max-retries, a response that cannot be judged (still rate limited, the
// key refused) named as such instead of being judged, at most --max-body-bytes of a body read, and
// the rest of the run not sent once the target stopped answering (--max-timeouts).

import type { HttpResponse } from "../response.js";
import { setTimeout as sleep } from "node:timers/promises";
import { brokenAnswer, DEFAULT_MAX_BODY_BYTES, readWithin } from "../bounded-response.js";

export interface OutgoingRequest {
  method: string;
  /** `undefined` sends `Bearer <api key>`; `null` sends no Authorization; a string is sent as is. */
  authorization: string | null | undefined;
  /** Absent: no Content-Type. */
  contentType?: string;
  body?: string;
  /** More headers, such as Idempotency-Key. */
  headers?: Record<string, string>;
}

/**
 * Why a response cannot be judged: a 429 after every retry, a 401/403 to the given key, not sent
 * after too many of those in a row, or not sent because the target stopped answering.
 */
export type Inconclusive = "rate_limited" | "key_refused" | "not_sent" | "not_answering";

export type Delivery =
  | { kind: "response"; response: HttpResponse; durationMs: number }
  /**
   * No whole response. `status`: the target answered with it, then broke (the connection closed
   * mid-body, or the body passed --max-body-bytes); `answered`: it sent something back at all.
   */
  | { kind: "no_response"; failure: string; status?: number; answered: boolean; connectionError: boolean; timedOut: boolean; durationMs: number }
  /** `response`: the last one (the 429, the 401), which says nothing of the request but can itself break the contract. */
  | { kind: "inconclusive"; why: Inconclusive; detail: string; response?: HttpResponse; durationMs: number };

/** `--rate-limit N/s` or `N/m`: at most `requests` started per `perMs`. */
export interface Pace {
  requests: number;
  perMs: number;
}

export interface TransportOptions {
  baseUrl: string;
  apiKey: string;
  timeoutMs: number;
  /** How often a 429 is waited out and the same request sent again (default 3). */
  maxRetries?: number;
  /** The longest Retry-After waited for; a longer one leaves the request rate limited at once (default 60 s). */
  maxRetryWaitMs?: number;
  pace?: Pace;
  /** After this many inconclusive requests in a row, the rest are not sent (default 10). */
  maxInconclusive?: number;
  /** The most of a body read (decoded bytes); past it the connection is dropped (default 1 MB). */
  maxBodyBytes?: number;
  /** After this many requests in a row timed out, the rest are not sent: the target stopped answering (default 3; 0 never stops). */
  maxTimeouts?: number;
}

export type InconclusiveTally = Record<Inconclusive, number>;

export interface Transport {
  send(request: OutgoingRequest): Promise<Delivery>;
  /** A GET of another path of the target, without the key (sendmock's `/_mock/templates/ID`): bounded and timed like a send, never retried. */
  probe(path: string): Promise<Delivery>;
  /** Requests left without a judgeable response so far, by why. */
  readonly inconclusive: Readonly<InconclusiveTally>;
  /** Whether any request got a response (the target is reachable). */
  readonly responded: boolean;
}

export const DEFAULT_MAX_RETRIES = 3;
export const DEFAULT_MAX_RETRY_WAIT_MS = 60_000;
export const DEFAULT_MAX_INCONCLUSIVE = 10;
/** Three requests in a row with no answer within --timeout: a silent target cost 177 requests of 10 s each, half an hour, before. */
export const DEFAULT_MAX_TIMEOUTS = 3;
export { DEFAULT_MAX_BODY_BYTES };
/** What a 429 without a usable Retry-After waits (Schemathesis and most clients: a second). */
/** What a paced window is widened by: a timer's granularity, and a target whose clock reads a little ahead. */
const PACE_MARGIN_MS = 5;
const DEFAULT_RETRY_AFTER_MS = 1000;

/** A reset past this many seconds is a moment (epoch seconds, as some X-RateLimit-Reset write it), not a delay. */
const EPOCH_SECONDS = 1_000_000_000;

/**
 * How long the service's own rate-limit fields say to wait before the next request: none while any
 * is left. The IETF field `RateLimit: "default";r=0;t=5` (draft-ietf-httpapi-ratelimit-headers),
 * or `RateLimit-Remaining` with `RateLimit-Reset`, or `X-RateLimit-Remaining` with `X-RateLimit-Reset`
 * (delay seconds, or epoch seconds). Undefined when they say nothing readable.
 */
export function rateLimitWaitMs(headers: Readonly<Record<string, string>>, now = Date.now()): number | undefined {
  const structured = headers.ratelimit;
  const remainingText = /(?:^|;)\s*r=(\d+)/.exec(structured ?? "")?.[1] ?? headers["ratelimit-remaining"] ?? headers["x-ratelimit-remaining"];
  const resetText = /(?:^|;)\s*t=(\d+)/.exec(structured ?? "")?.[1] ?? headers["ratelimit-reset"] ?? headers["x-ratelimit-reset"];
  if (remainingText === undefined || resetText === undefined || !/^\d+$/.test(remainingText.trim()) || !/^\d+(\.\d+)?$/.test(resetText.trim()))
    return undefined;
  if (Number(remainingText) > 0) return undefined;
  const reset = Number(resetText);
  return reset > EPOCH_SECONDS ? Math.max(0, reset * 1000 - now) : reset * 1000;
}

/** The most requests a quota policy may count that a run follows: more is a day's quota, not a pace (and its window would hold as many times). */
const MAX_POLICY_QUOTA = 100_000;

/**
 * The quotas the service's `RateLimit-Policy` field publishes: `"default";q=5;w=1` (the IETF draft's
 * structured form) or `5;w=1` (its earlier one), each of a list; none when it says nothing readable.
 * A run keeps to every one from the answer that publishes them on, never more than `q` in any `w` seconds.
 */
export function policyQuotas(headers: Readonly<Record<string, string>>): Pace[] {
  const quotas: Pace[] = [];
  for (const policy of (headers["ratelimit-policy"] ?? "").split(",")) {
    const quota = /(?:^|;)\s*q=(\d+)\s*(?:;|$)/.exec(policy)?.[1] ?? /^\s*(\d+)\s*(?:;|$)/.exec(policy)?.[1];
    const window = /(?:^|;)\s*w=(\d+)\s*(?:;|$)/.exec(policy)?.[1];
    const requests = Number(quota);
    const seconds = Number(window);
    if (quota !== undefined && window !== undefined && requests >= 1 && requests <= MAX_POLICY_QUOTA && seconds >= 1)
      quotas.push({ requests, perMs: seconds * 1000 });
  }
  return quotas;
}

/** `Retry-After` as milliseconds: delay-seconds or an HTTP date (RFC 9110 §10.2.3); undefined when absent or unreadable. */
export function retryAfterMs(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

const isTimeout = (error: unknown): boolean => error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError");

function describeTargetFailure(error: unknown, timeoutMs: number): string {
  if (isTimeout(error)) return `timed out after ${timeoutMs} ms`;
  const cause = (error as { cause?: { code?: string; message?: string } } | undefined)?.cause;
  return cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
}

/**
 * Why `key` cannot go in an Authorization header (fetch would refuse it, quoting the whole key in
 * its error), in words; undefined when it can. Only what fetch refuses: a line break or NUL inside
 * it, a character past U+00FF.
 */
export function unsendableKey(key: string): string | undefined {
  const inner = key.replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, "");
  if (/[\r\n]/.test(inner)) return "a line break";
  if (inner.includes("\0")) return "a NUL character";
  if (/[\u0100-\uffff]/.test(inner)) return "a character past U+00FF";
  return undefined;
}

export function createTransport(options: TransportOptions): Transport {
  const maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
  const maxRetryWaitMs = options.maxRetryWaitMs ?? DEFAULT_MAX_RETRY_WAIT_MS;
  const maxInconclusive = options.maxInconclusive ?? DEFAULT_MAX_INCONCLUSIVE;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const maxTimeouts = options.maxTimeouts ?? DEFAULT_MAX_TIMEOUTS;
  const interval = options.pace === undefined ? 0 : options.pace.perMs / options.pace.requests;
  /** The quotas the service's RateLimit-Policy published last; `--rate-limit`'s own window is `options.pace`. */
  let policies: Pace[] = [];
  const inconclusive: InconclusiveTally = { rate_limited: 0, key_refused: 0, not_sent: 0, not_answering: 0 };
  let nextStart = 0;
  let inARow = 0;
  let timeoutsInARow = 0;
  let responded = false;

  /** When each of the last exchanges ended (its answer read, or it failed), oldest first: as many as the largest window's quota. */
  const ended: number[] = [];

  /**
   * Waits for the next slot: evenly spaced by `--rate-limit`, and never more than a window's quota in
   * any such window (`--rate-limit`'s, and each the service's RateLimit-Policy publishes), whatever their
   * trips: the target counts a request when it arrives, at some moment between its start and its end,
   * so a request starts a whole window after the end of the one `requests` before it. Spacing the
   * starts alone let a slow trip and a quick one land 11 in 999 ms at 10/s.
   */
  async function paced(): Promise<void> {
    const now = performance.now();
    let start = Math.max(now, nextStart);
    const slot = (window: Pace): number => {
      const opener = ended.length < window.requests ? undefined : ended[ended.length - window.requests];
      return opener === undefined ? start : opener + window.perMs + PACE_MARGIN_MS;
    };
    if (options.pace !== undefined) start = Math.max(start, slot(options.pace));
    // A policy's slot past --max-retry-wait is not waited for, as such a reset is not (a day's quota of a few): the 429 that follows is counted.
    for (const policy of policies) {
      const policySlot = slot(policy);
      if (policySlot - now <= maxRetryWaitMs) start = Math.max(start, policySlot);
    }
    nextStart = start + interval;
    if (start > now) await sleep(start - now);
  }

  /**
   * The service said none is left until a reset (its RateLimit fields): the next request waits for it. A
   * reset past --max-retry-wait is not waited for, as such a Retry-After is not: the 429 that follows is
   * counted rate limited at once.
   */
  function followLimitFields(headers: Readonly<Record<string, string>>): void {
    const quotas = policyQuotas(headers);
    if (quotas.length > 0) policies = quotas;
    const waitMs = rateLimitWaitMs(headers);
    if (waitMs === undefined || waitMs > maxRetryWaitMs) return;
    nextStart = Math.max(nextStart, performance.now() + waitMs + PACE_MARGIN_MS);
  }

  /** Notes an exchange's end for the pace's window. */
  function exchangeEnded(): void {
    ended.push(performance.now());
    // One while there is no window: a policy may come with the next answer, and the last request counts in it.
    if (ended.length > Math.max(1, options.pace?.requests ?? 1, ...policies.map((policy) => policy.requests))) ended.shift();
  }

  /** One request and its response, the body read up to the bound; counts the timeouts in a row. */
  async function attempt(request: OutgoingRequest, path = "/send"): Promise<Delivery> {
    const delivery = await exchange(request, path);
    if (delivery.kind === "no_response" && delivery.timedOut) timeoutsInARow++;
    else if (delivery.kind === "response" || (delivery.kind === "no_response" && delivery.answered)) timeoutsInARow = 0;
    return delivery;
  }

  async function exchange(request: OutgoingRequest, path: string): Promise<Delivery> {
    const headers: Record<string, string> = { ...request.headers };
    if (request.authorization !== null) headers.Authorization = request.authorization ?? `Bearer ${options.apiKey}`;
    if (request.contentType !== undefined) headers["Content-Type"] = request.contentType;
    await paced();
    try {
      return await exchangeNow(request, path, headers);
    } finally {
      exchangeEnded();
    }
  }

  async function exchangeNow(request: OutgoingRequest, path: string, headers: Record<string, string>): Promise<Delivery> {
    const started = performance.now();
    const took = (): number => Math.round(performance.now() - started);
    let status: number | undefined;
    try {
      const fetched = await fetch(`${options.baseUrl}${path}`, {
        method: request.method,
        headers,
        body: request.body,
        redirect: "manual",
        // The whole exchange, body included: a body that trickles forever times out too.
        signal: AbortSignal.timeout(options.timeoutMs),
      });
      status = fetched.status;
      responded = true;
      const body = await readWithin(fetched, maxBodyBytes);
      if (body === undefined) {
        const failure = `answered ${status} with a body over --max-body-bytes (${maxBodyBytes} bytes): not read further`;
        return { kind: "no_response", failure, status, answered: true, connectionError: false, timedOut: false, durationMs: took() };
      }
      const response = { status, headers: Object.fromEntries(fetched.headers), body: body.toString("utf8") };
      followLimitFields(response.headers);
      return { kind: "response", response, durationMs: took() };
    } catch (error) {
      const broken = brokenAnswer(error, status);
      if (broken !== undefined) {
        responded = true;
        return { kind: "no_response", failure: broken, status, answered: true, connectionError: false, timedOut: isTimeout(error), durationMs: took() };
      }
      return {
        kind: "no_response",
        failure: describeTargetFailure(error, options.timeoutMs),
        answered: false,
        // fetch rejects with a TypeError when it cannot connect (refused, no such host, reset).
        connectionError: error instanceof TypeError,
        timedOut: isTimeout(error),
        durationMs: took(),
      };
    }
  }

  /** The rest of the run, once the target stopped answering: not sent, so a silent target costs --max-timeouts timeouts, not one per request. */
  function notAnswering(): Delivery | undefined {
    if (maxTimeouts === 0 || timeoutsInARow < maxTimeouts) return undefined;
    return counted({
      kind: "inconclusive",
      why: "not_answering",
      detail: `not sent: the target stopped answering (${timeoutsInARow} requests in a row timed out)`,
      durationMs: 0,
    });
  }

  function counted(delivery: Delivery): Delivery {
    if (delivery.kind === "inconclusive") {
      inconclusive[delivery.why]++;
      inARow++;
    } else {
      inARow = 0;
    }
    return delivery;
  }

  async function send(request: OutgoingRequest): Promise<Delivery> {
    const stopped = notAnswering();
    if (stopped !== undefined) return stopped;
    if (maxInconclusive > 0 && inARow >= maxInconclusive) {
      return counted({ kind: "inconclusive", why: "not_sent", detail: `not sent: ${inARow} requests in a row had no judgeable answer`, durationMs: 0 });
    }
    for (let retry = 0; ; retry++) {
      const delivery = await attempt(request);
      if (delivery.kind !== "response") return counted(delivery);
      const { status, headers } = delivery.response;
      // Only a request that carries the given key says anything about that key.
      if ((status === 401 || status === 403) && request.authorization === undefined) {
        return counted({
          kind: "inconclusive",
          why: "key_refused",
          detail: `the API key was refused (${status})`,
          response: delivery.response,
          durationMs: delivery.durationMs,
        });
      }
      if (status !== 429) return counted(delivery);
      const waitMs = retryAfterMs(headers["retry-after"]) ?? DEFAULT_RETRY_AFTER_MS;
      if (retry >= maxRetries || waitMs > maxRetryWaitMs) {
        const why =
          retry >= maxRetries
            ? `still 429 after ${maxRetries} ${maxRetries === 1 ? "retry" : "retries"}`
            : `429 asking for a wait of ${Math.ceil(waitMs / 1000)} s, over --max-retry-wait`;
        return counted({
          kind: "inconclusive",
          why: "rate_limited",
          detail: `rate limited: ${why}`,
          response: delivery.response,
          durationMs: delivery.durationMs,
        });
      }
      await sleep(waitMs);
    }
  }

  return {
    send,
    probe: (path) => attempt({ method: "GET", authorization: null }, path),
    inconclusive,
    get responded() {
      return responded;
    },
  };
}
