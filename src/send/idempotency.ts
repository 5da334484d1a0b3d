// Steps: the Idempotency-Key's form (before the contract check), then its claim, a replay of the kept response, or a refusal.

import { excerpt } from "../domain/excerpt.js";
import { bodyFingerprint, IDEMPOTENCY_KEY_PATTERN, idempotencyScope, type IdempotencyStore, type KeptResponse } from "../domain/idempotency.js";
import { ApiError } from "../errors.js";
import { headerText } from "./header-text.js";
import type { KeyClaim } from "./exchange.js";

export const REPLAYED_HEADER = "idempotency-replayed";

/**
 * Refuses a malformed key before the contract check, which would call it `invalid_request`:
 * a client that built its key wrong should read the key's own code.
 */
export function checkKeyForm(key: string | undefined): void {
  if (key === undefined || IDEMPOTENCY_KEY_PATTERN.test(key)) return;
  const written = headerText(key);
  const found = written.length === 0 ? "an empty key" : `${JSON.stringify(excerpt(written, 80))} (${written.length} characters)`;
  throw new ApiError("invalid_idempotency_key", `Invalid Idempotency-Key: it must be 1 to 255 visible ASCII characters, got ${found}`, {
    violations: [{ path: "/headers/idempotency-key", message: "idempotency-key must be 1 to 255 visible ASCII characters" }],
  });
}

/** The key is now this request's, or it got a response before: the response kept then is sent again. */
export type KeyUse = { claimed: KeyClaim } | { replay: KeptResponse };

/**
 * Claims `key` for this request. Keys are per API key (so after authentication), the body must
 * be known (so after parsing), and the response of a `lost_answer` fault must be kept (so before
 * the faults). After the rate limiter too: a replay counts against the limit like any request.
 */
export async function claimKey(key: string, apiKey: string, body: unknown, store: IdempotencyStore): Promise<KeyUse> {
  const scope = idempotencyScope(apiKey, key);
  const fingerprint = bodyFingerprint(body);
  const claim = await store.claim(scope, fingerprint);
  if (claim.state === "claimed") return { claimed: { scope, fingerprint } };
  const named = JSON.stringify(excerpt(key, 80));
  if (claim.fingerprint !== fingerprint) {
    throw new ApiError("idempotency_key_reused", `Idempotency-Key ${named} was already used with another body: use a new key for a new request`, {
      violations: [{ path: "/headers/idempotency-key", message: "this key was already used with another body" }],
    });
  }
  if (claim.state === "in_flight") {
    throw new ApiError("idempotency_key_in_flight", `Idempotency-Key ${named} is still being answered: retry once the first request has its answer`);
  }
  return { replay: claim.response };
}

/**
 * Injected responses that are not the service's own response to the request: a failure that passes
 * (a broken body, no response, a 5xx, a 429) or a response a `respond` rule made up. Kept, such an
 * response would be replayed for the whole TTL, and a retry would never reach the send it was
 * retrying (a `malformed_response` once made a client replay its broken 200 for a day, with
 * nothing ever captured). Not in the set, and kept: `invalid_recipient`, `invalid_template_id`
 * and `missing_template_data`, which stand for the service's final refusal of this very request
 * (it would refuse it again), `latency`, whose response is the service's own, only late, and
 * `lost_answer`, whose response is the real one the client never read.
 */
const UNKEPT_FAULTS: ReadonlySet<string> = new Set(["malformed_response", "respond", "timeout", "disconnect", "server_error", "rate_limit"]);

/**
 * Whether a response is kept for its key: not a 429 or a 5xx, which ask the client to try again,
 * nor the response of an injected fault in UNKEPT_FAULTS; the retry of those is processed afresh.
 */
export function isKeptResponse(status: number, fault: string | undefined): boolean {
  return status !== 429 && status < 500 && (fault === undefined || !UNKEPT_FAULTS.has(fault));
}
