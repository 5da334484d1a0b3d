// Idempotency-Key as steps of POST /send: the key's form before the contract check, then the claim, replay or refusal.

import type { NextFunction, Request, Response } from "express";
import { bodyFingerprint, IDEMPOTENCY_KEY_PATTERN, idempotencyScope, isKeptAnswer, type IdempotencyStore, type KeptAnswer } from "../domain/idempotency.js";
import { excerpt } from "../domain/excerpt.js";
import { ApiError } from "../errors.js";
import { ERROR_CODE_HEADER } from "./error-shapes.js";
import { sendRecordOf } from "./request-record.js";

export const REPLAYED_HEADER = "Idempotency-Replayed";

/** The headers that belong to an answer itself; the rate-limit fields describe the request at hand and are never replayed. */
const KEPT_HEADERS = ["content-type", ERROR_CODE_HEADER.toLowerCase(), "x-sendmock-warning", "retry-after"];

function keptHeadersOf(res: Response): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of KEPT_HEADERS) {
    const value = res.getHeader(name);
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(", ") : String(value);
  }
  return headers;
}

function textOf(chunk: unknown, encoding: unknown): string {
  if (typeof chunk === "string") return Buffer.from(chunk, typeof encoding === "string" && Buffer.isEncoding(encoding) ? encoding : "utf8").toString("utf8");
  return chunk instanceof Uint8Array ? Buffer.from(chunk).toString("utf8") : "";
}

/**
 * Refuses a malformed key before the contract check, which would call it `invalid_request`:
 * a client that built its key wrong should read the key's own code.
 */
export function checkIdempotencyKey(req: Request, _res: Response, next: NextFunction): void {
  const key = req.get("idempotency-key");
  if (key === undefined || IDEMPOTENCY_KEY_PATTERN.test(key)) {
    next();
    return;
  }
  const found = key.length === 0 ? "an empty key" : `${JSON.stringify(excerpt(key, 80))} (${key.length} characters)`;
  next(
    new ApiError("invalid_idempotency_key", `Invalid Idempotency-Key: it must be 1 to 255 visible ASCII characters, got ${found}`, {
      violations: [{ path: "/headers/idempotency-key", message: "idempotency-key must be 1 to 255 visible ASCII characters" }],
    }),
  );
}

/** Sends a kept answer again, byte for byte, marked as a replay. */
function replay(res: Response, answer: KeptAnswer): void {
  const record = sendRecordOf(res);
  record.idempotentReplay = true;
  record.messageId = answer.messageId ?? undefined;
  record.errorCode = answer.headers[ERROR_CODE_HEADER.toLowerCase()];
  res.status(answer.status);
  res.set(answer.headers);
  res.set(REPLAYED_HEADER, "true");
  // res.end, not res.json: the body was validated when it first went out, and must go out as it did.
  res.end(answer.body);
}

/**
 * After the contract check and before the faults: the key is per API key (so after
 * authentication), the body must be known (so after parsing), and the answer of a `lost_answer`
 * fault must be kept (so before the faults). After the rate limiter too: a replay counts against
 * the limit like any request, and a 429 is never kept, so the retry after Retry-After is processed.
 */
export function honourIdempotencyKey(deps: { idempotency: IdempotencyStore }) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const key = req.get("idempotency-key");
    if (key === undefined) {
      next();
      return;
    }
    const record = sendRecordOf(res);
    const scope = idempotencyScope(record.apiKey ?? "", key);
    const fingerprint = bodyFingerprint(req.body);
    const claim = await deps.idempotency.claim(scope, fingerprint);
    if (claim.state !== "claimed") {
      if (claim.fingerprint !== fingerprint) {
        throw new ApiError(
          "idempotency_key_reused",
          `Idempotency-Key ${JSON.stringify(excerpt(key, 80))} was already used with another body: use a new key for a new request`,
          { violations: [{ path: "/headers/idempotency-key", message: "this key was already used with another body" }] },
        );
      }
      if (claim.state === "in_flight") {
        throw new ApiError(
          "idempotency_key_in_flight",
          `Idempotency-Key ${JSON.stringify(excerpt(key, 80))} is still being answered: retry once the first request has its answer`,
        );
      }
      replay(res, claim.answer);
      return;
    }

    let settled = false;
    const settle = async (answer: KeptAnswer): Promise<void> => {
      settled = true;
      // The fault that decided the answer is known by now: the fault step runs before any answer.
      await (isKeptAnswer(answer.status, record.fault) ? deps.idempotency.keep(scope, fingerprint, answer) : deps.idempotency.release(scope));
    };
    record.keepAnswer = settle;
    // Kept before the answer goes out: a client that retries the moment it reads it must find it kept.
    const end = res.end.bind(res) as (...args: unknown[]) => Response;
    res.end = ((...args: unknown[]) => {
      if (settled) return end(...args);
      const answer = { status: res.statusCode, headers: keptHeadersOf(res), body: textOf(args[0], args[1]), messageId: record.messageId ?? null };
      // A store that is down must not keep the answer from the client: it is sent all the same.
      void settle(answer)
        .catch(() => undefined)
        .finally(() => end(...args));
      return res;
    }) as Response["end"];
    // No answer at all (a disconnect or timeout fault): the key is let go, so a retry is processed.
    // A pipeline that still answers later (a client gone during latency) keeps its answer then.
    res.once("close", () => {
      if (!settled) void deps.idempotency.release(scope).catch(() => undefined);
    });
    next();
  };
}
