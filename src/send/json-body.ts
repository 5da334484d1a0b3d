// Steps: the media type (JSON in UTF-8), then the body as a JSON object.

import { isUtf8 } from "node:buffer";
import contentType from "content-type";
import { ApiError } from "../errors.js";
import type { SendCall } from "./exchange.js";

/** The body's value, or why there is none: known from arrival (the journal names `to`), refused only at its step. */
export type ParsedBody = { ok: true; value: unknown } | { ok: false; problem: unknown };

const BYTE_ORDER_MARK = "\ufeff";
const EMPTY: ParsedBody = { ok: false, problem: new ApiError("invalid_json", "Invalid JSON body: expected a JSON object, got an empty body") };

/**
 * The JSON value of the body. Invalid UTF-8 is refused, not read as U+FFFD: the captured message
 * would differ from what was sent. A leading byte order mark is skipped, as express.json did.
 */
export function parseBody(call: SendCall): ParsedBody {
  const raw = call.body;
  if (raw === undefined) return call.bodyProblem === undefined ? { ok: true, value: undefined } : { ok: false, problem: call.bodyProblem };
  if (raw.length === 0) return EMPTY;
  if (!isUtf8(raw)) return { ok: false, problem: new ApiError("invalid_json", "Invalid JSON body: the body is not valid UTF-8 (JSON must be sent as UTF-8)") };
  const text = raw.toString("utf8");
  try {
    return { ok: true, value: JSON.parse(text.startsWith(BYTE_ORDER_MARK) ? text.slice(1) : text) as unknown };
  } catch (error) {
    return {
      ok: false,
      problem: new ApiError("invalid_json", `Invalid JSON body: ${error instanceof Error ? error.message : String(error)}`, { cause: error }),
    };
  }
}

/** Refuses anything but `application/json`, in UTF-8 or with no charset. */
export function requireJsonMediaType(header: string | undefined): void {
  let parsed: contentType.ContentType | undefined;
  try {
    parsed = header === undefined ? undefined : contentType.parse(header);
  } catch {
    parsed = undefined;
  }
  if (parsed?.type !== "application/json") {
    const found = header === undefined ? "no Content-Type" : `Content-Type ${JSON.stringify(header)}`;
    throw new ApiError("unsupported_media_type", `Unsupported media type: the body must be sent as application/json, got ${found}`, {
      violations: [{ path: "/headers/content-type", message: "content-type must be application/json" }],
    });
  }
  // JSON between systems is UTF-8 (RFC 8259); decoding a body as latin1 or UTF-16 would capture
  // text the client never meant, so any other charset is refused by name.
  const charset = parsed.parameters.charset;
  if (charset !== undefined && charset.toLowerCase() !== "utf-8") {
    throw new ApiError(
      "unsupported_media_type",
      `Unsupported charset ${JSON.stringify(charset)}: the body must be JSON in UTF-8 (charset=utf-8, or no charset)`,
      {
        violations: [{ path: "/headers/content-type", message: "the charset must be utf-8" }],
      },
    );
  }
}

/** The body as a JSON object: its read or parse problem, if any, else anything but an object is refused. */
export function requireJsonObject(body: ParsedBody): Record<string, unknown> {
  if (!body.ok) throw body.problem;
  const { value } = body;
  if (value !== null && typeof value === "object" && !Array.isArray(value)) return value as Record<string, unknown>;
  const kind = value === undefined ? "an empty body" : value === null ? "null" : Array.isArray(value) ? "an array" : `a ${typeof value}`;
  throw new ApiError("invalid_json", `Invalid JSON body: expected a JSON object, got ${kind}`);
}
