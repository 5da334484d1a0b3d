// Idempotency keys of POST /send: what a kept response is, how a key and a body are named, and the store that keeps them.

import type { HttpResponse } from "../response.js";
import { sha256 } from "./digest.js";

/** What a client may send as `Idempotency-Key`: 1 to 255 visible ASCII characters. */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** A response as it went out the first time, to be sent again as is. */
/** Its headers are those that belong to the response itself (content type, error code, warnings, Retry-After). */
export interface KeptResponse extends HttpResponse {
  /** The message the first request captured, for the journal entry of each replay. */
  readonly messageId: string | null;
}

/** What a claim found: the key is now this request's, or another request holds it, or it was responded to. */
export type IdempotencyClaim =
  { state: "claimed" } | { state: "in_flight"; fingerprint: string } | { state: "responded"; fingerprint: string; response: KeptResponse };

export interface IdempotencyLimits {
  /** How long a response is kept, on the mock's clock (`idempotency_ttl_s`). */
  ttlMs: number;
  /** Keys kept at once (`max_idempotency_keys`); the oldest go past it. */
  maxKeys: number;
}

/** Asynchronous, so that replicas sharing a store see one key: a claim is atomic. */
export interface IdempotencyStore {
  /** Claims `scope` for a request whose body is `fingerprint`, unless a live claim or a kept response holds it. */
  claim(scope: string, fingerprint: string): Promise<IdempotencyClaim>;
  /** Keeps the response of the request that claimed `scope`, for the TTL from now. */
  keep(scope: string, fingerprint: string, response: KeptResponse): Promise<void>;
  /** Lets go of a claim whose response is not kept (a 429, a 5xx, no response): a retry is processed afresh. */
  release(scope: string): Promise<void>;
  reset(): Promise<void>;
}

/** Keys are per API key, and neither is kept whole: one digest names both. */
export function idempotencyScope(apiKey: string, idempotencyKey: string): string {
  return sha256(`${apiKey}\n${idempotencyKey}`, "base64");
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value === null || typeof value !== "object") return value;
  const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(entries.map(([key, item]) => [key, canonical(item)]));
}

/** The same JSON gives the same fingerprint whatever the order of its keys. */
export function bodyFingerprint(body: unknown): string {
  return sha256(JSON.stringify(canonical(body)), "base64");
}
