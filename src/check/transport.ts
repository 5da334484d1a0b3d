// How `sendmock check` sends each request to the target: paced by --rate-limit, a 429 waited out
// and sent again up to --max-retries, and a response that cannot be judged (still rate limited, the
// key refused) named as such instead of being judged.

import type { HttpResponse } from "../response.js";
import { setTimeout as sleep } from "node:timers/promises";

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

/** Why a response cannot be judged: a 429 after every retry, a 401/403 to the given key, or not sent after too many of those in a row. */
export type Inconclusive = "rate_limited" | "key_refused" | "not_sent";

export type Delivery =
  | { kind: "response"; response: HttpResponse; durationMs: number }
  | { kind: "no_response"; failure: string; connectionError: boolean; durationMs: number }
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
}

export type InconclusiveTally = Record<Inconclusive, number>;

export interface Transport {
  send(request: OutgoingRequest): Promise<Delivery>;
  /** Requests left without a judgeable response so far, by why. */
  readonly inconclusive: Readonly<InconclusiveTally>;
  /** Whether any request got a response (the target is reachable). */
  readonly responded: boolean;
}

export const DEFAULT_MAX_RETRIES = 3;
export const DEFAULT_MAX_RETRY_WAIT_MS = 60_000;
export const DEFAULT_MAX_INCONCLUSIVE = 10;
/** What a 429 without a usable Retry-After waits (Schemathesis and most clients: a second). */
const DEFAULT_RETRY_AFTER_MS = 1000;

/** `Retry-After` as milliseconds: delay-seconds or an HTTP date (RFC 9110 §10.2.3); undefined when absent or unreadable. */
export function retryAfterMs(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function describeTargetFailure(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError")) return `timed out after ${timeoutMs} ms`;
  const cause = (error as { cause?: { code?: string; message?: string } } | undefined)?.cause;
  return cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
}

export function createTransport(options: TransportOptions): Transport {
  const maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
  const maxRetryWaitMs = options.maxRetryWaitMs ?? DEFAULT_MAX_RETRY_WAIT_MS;
  const maxInconclusive = options.maxInconclusive ?? DEFAULT_MAX_INCONCLUSIVE;
  const interval = options.pace === undefined ? 0 : options.pace.perMs / options.pace.requests;
  const inconclusive: InconclusiveTally = { rate_limited: 0, key_refused: 0, not_sent: 0 };
  let nextStart = 0;
  let inARow = 0;
  let responded = false;

  /** Waits for the pace's next slot: requests are sent one at a time, so one clock is enough. */
  async function paced(): Promise<void> {
    const now = performance.now();
    const start = Math.max(now, nextStart);
    nextStart = start + interval;
    if (start > now) await sleep(start - now);
  }

  async function attempt(request: OutgoingRequest): Promise<Delivery> {
    const headers: Record<string, string> = { ...request.headers };
    if (request.authorization !== null) headers.Authorization = request.authorization ?? `Bearer ${options.apiKey}`;
    if (request.contentType !== undefined) headers["Content-Type"] = request.contentType;
    await paced();
    const started = performance.now();
    try {
      const fetched = await fetch(`${options.baseUrl}/send`, {
        method: request.method,
        headers,
        body: request.body,
        redirect: "manual",
        signal: AbortSignal.timeout(options.timeoutMs),
      });
      const response = { status: fetched.status, headers: Object.fromEntries(fetched.headers), body: await fetched.text() };
      responded = true;
      return { kind: "response", response, durationMs: Math.round(performance.now() - started) };
    } catch (error) {
      return {
        kind: "no_response",
        failure: describeTargetFailure(error, options.timeoutMs),
        // fetch rejects with a TypeError when it cannot connect (refused, no such host, reset).
        connectionError: error instanceof TypeError,
        durationMs: Math.round(performance.now() - started),
      };
    }
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
    inconclusive,
    get responded() {
      return responded;
    },
  };
}
