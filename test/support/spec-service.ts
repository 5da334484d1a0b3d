// A stand-in for the real email send service, written from the service's published spec (send-api-spec.md) only, never from sendmock's contract or code: `check` and `proxy` are judged against it.

import { randomBytes, randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type SpecServiceVariant =
  | "conforming"
  | "rate-limited"
  | "refuses-key"
  | "success-without-status"
  | "server-error-on-non-ascii-data"
  /** Takes a send without `data` as a send with `{}`: the spec requires it (§4.1), so this one bug accepts what it must refuse. */
  | "data-optional";

export interface SpecServiceOptions {
  /** rate-limited only: at most `requests` accepted per API key per `windowSeconds` (default 12 per 3600). */
  rateLimit?: {
    requests: number;
    windowSeconds: number;
    /** default true: send Retry-After (whole seconds until a slot frees, at least 1) */
    retryAfter?: boolean;
    /** Also say on every response how many are left and when a slot frees: the IETF `RateLimit` field, or `X-RateLimit-*`; or only the quota itself, the IETF `RateLimit-Policy` (default none). */
    fields?: "ietf" | "x" | "policy";
  };
}

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** The status it got a response with; 0 while without a response, or when the client went away before a response. */
  status: number;
}

export interface SpecService {
  /** http://127.0.0.1:PORT (base URL; the operation is POST {url}/send) */
  url: string;
  /** Every request in arrival order, with the status it got a response. */
  received: ReceivedRequest[];
  /** What "was sent" (accepted sends). */
  sent: { to: string; template_id: string; subject: string; message_id: string }[];
  /** Closes all connections and the server. */
  close(): Promise<void>;
}

/** The spec states no body limit (§8); 1 MB keeps a stray test from filling memory. */
const BODY_LIMIT = 1024 * 1024;

/** The spec says templates are made in the dashboard (§2.2); these stand for what a test account would hold. */
const TEMPLATES: ReadonlyMap<string, { subject: string; placeholders: ReadonlySet<string> }> = new Map([
  ["welcome", { subject: "Welcome, {name}", placeholders: new Set(["name", "company"]) }],
  ["receipt", { subject: "Your receipt {order}", placeholders: new Set(["order"]) }],
]);

interface StandInResponse {
  status: number;
  body: Record<string, unknown>;
  headers?: Record<string, string>;
}

/** Shape A error (spec §7): `{ success: false, error: { code, message } }`. */
const errorA = (status: number, code: string, message: string, headers?: Record<string, string>): StandInResponse => ({
  status,
  body: { success: false, error: { code, message } },
  ...(headers === undefined ? {} : { headers }),
});

/** Shape B error (spec §7): `{ status: "error", message }`, the "message only" kind. */
const errorB = (status: number, message: string): StandInResponse => ({ status, body: { status: "error", message } });

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === "object" && !Array.isArray(value);

const isStringArray = (value: unknown): value is string[] => Array.isArray(value) && value.every((item) => typeof item === "string");

// Anything past U+007F is what the renderer chokes on.
const hasNonAscii = (text: string): boolean => /\P{ASCII}/u.test(text);

/**
 * This service's own idea of an address, deliberately not RFC 5322 nor any library's: one `@`, a local part
 * without whitespace, a dotted domain of letter/digit/hyphen labels ending in a 2+ letter label, ≤ 254 chars.
 */
function isEmailAddress(value: string): boolean {
  if (value.length > 254) return false;
  const parts = value.split("@");
  if (parts.length !== 2) return false;
  const [local = "", domain = ""] = parts;
  if (local === "" || /\s/u.test(local)) return false;
  const labels = domain.split(".");
  if (labels.length < 2 || !labels.every((label) => /^[A-Za-z0-9-]+$/.test(label))) return false;
  return /^[A-Za-z]{2,}$/.test(labels[labels.length - 1] ?? "");
}

/** `{placeholder}` replaced by its value; a placeholder with no value renders empty, an array joins with ", ". */
function render(text: string, data: Record<string, string | string[]>): string {
  return text.replace(/\{([^{}]+)\}/g, (_whole, name: string) => {
    const value = Object.hasOwn(data, name) ? data[name] : undefined;
    return value === undefined ? "" : Array.isArray(value) ? value.join(", ") : value;
  });
}

/** The Bearer token of an Authorization header (scheme case-insensitive, RFC 7235), or undefined. */
function bearerKey(header: string | undefined): string | undefined {
  const match = /^Bearer +(\S+) *$/i.exec(header ?? "");
  return match?.[1];
}

/** Sliding-window log per API key: the times of the requests let through in the last window. */
class RateLimiter {
  private readonly seen = new Map<string, number[]>();

  constructor(
    private readonly requests: number,
    private readonly windowMs: number,
  ) {}

  /** Undefined when the request may pass (and is counted), else the milliseconds until a slot frees. */
  take(key: string, now: number): number | undefined {
    const times = (this.seen.get(key) ?? []).filter((time) => time > now - this.windowMs);
    this.seen.set(key, times);
    if (times.length < this.requests) {
      times.push(now);
      return undefined;
    }
    // The oldest counted request leaving the window frees the next slot; refused requests are not counted,
    // so a client that retries on 429 does not push its own slot further away.
    const oldest = times[times.length - this.requests] ?? now;
    return oldest + this.windowMs - now;
  }

  /** How many `key` has left in the window now, and the whole seconds until its next slot frees (0 while some are left). */
  state(key: string, now: number): { remaining: number; resetSeconds: number } {
    const times = (this.seen.get(key) ?? []).filter((time) => time > now - this.windowMs);
    const remaining = Math.max(0, this.requests - times.length);
    const oldest = times[times.length - this.requests];
    return { remaining, resetSeconds: remaining > 0 || oldest === undefined ? 0 : Math.max(1, Math.ceil((oldest + this.windowMs - now) / 1000)) };
  }
}

/** Reads the whole body, keeping at most BODY_LIMIT bytes but draining the rest so the response follows the full upload. */
function readBody(req: IncomingMessage): Promise<{ text: string; tooLarge: boolean }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > BODY_LIMIT) tooLarge = true;
      else chunks.push(chunk);
    });
    req.on("end", () => resolve({ text: Buffer.concat(chunks).toString("utf8"), tooLarge }));
    req.on("error", reject);
    req.on("aborted", () => reject(new Error("client aborted the request")));
  });
}

export async function startSpecService(variant: SpecServiceVariant, options: SpecServiceOptions = {}): Promise<SpecService> {
  const received: ReceivedRequest[] = [];
  const sent: SpecService["sent"] = [];
  const limit = options.rateLimit ?? { requests: 12, windowSeconds: 3600 };
  if (!Number.isInteger(limit.requests) || limit.requests < 1 || !(limit.windowSeconds > 0)) {
    throw new RangeError("rateLimit needs requests ≥ 1 (an integer) and windowSeconds > 0");
  }
  const limiter = variant === "rate-limited" ? new RateLimiter(limit.requests, limit.windowSeconds * 1000) : undefined;
  const sendRetryAfter = limit.retryAfter ?? true;

  /** Everything after routing and reading, in the order the brief sets: auth, limit, type, parse, crash, fields, template. */
  function handleSend(req: IncomingMessage, text: string, tooLarge: boolean): StandInResponse {
    // §5 leaves the response to a missing or wrong key unstated: 401 for no usable Bearer token, 403 for a refused one.
    const key = bearerKey(req.headers.authorization);
    if (key === undefined) return errorA(401, "unauthorized", "Missing or malformed Authorization header; expected 'Bearer <API_KEY>'");
    if (variant === "refuses-key") return errorA(403, "forbidden", "This API key is not allowed to send email");

    if (limiter !== undefined) {
      const waitMs = limiter.take(key, Date.now());
      if (waitMs !== undefined) {
        const headers = sendRetryAfter ? { "Retry-After": String(Math.max(1, Math.ceil(waitMs / 1000))) } : undefined;
        const message = `Rate limit exceeded: at most ${limit.requests} requests per ${limit.windowSeconds} s for this API key`;
        return errorA(429, "rate_limit_exceeded", message, headers);
      }
    }

    // Past auth and the limit, so an oversized upload from a known key still counts against its limit.
    if (tooLarge) return errorB(413, "Request body too large (limit 1 MB)");

    const mediaType = (req.headers["content-type"] ?? "").split(";")[0]?.trim().toLowerCase();
    if (mediaType !== "application/json") return errorA(400, "bad_request", "Content-Type must be application/json");

    let payload: unknown;
    try {
      payload = JSON.parse(text);
    } catch {
      return errorA(400, "bad_request", "Request body is not valid JSON");
    }
    if (!isObject(payload)) return errorA(400, "bad_request", "Request body must be a JSON object");

    if (variant === "server-error-on-non-ascii-data" && isObject(payload.data)) {
      const strings = Object.entries(payload.data).flatMap(([name, value]) => [
        name,
        ...(typeof value === "string" ? [value] : Array.isArray(value) ? value.filter((item) => typeof item === "string") : []),
      ]);
      if (strings.some(hasNonAscii)) return errorB(500, "Internal server error");
    }

    // §4.1 rule 1 and §7 "Required data missing: message only" — shape B. Only an absent member is missing; null is a wrong type.
    for (const field of ["to", "template_id", "data"] as const) {
      if (!Object.hasOwn(payload, field) && !(field === "data" && variant === "data-optional")) return errorB(422, `${field} is required`);
    }
    const { to, template_id: templateId, cc, bcc, reply_to: replyTo, subject } = payload;
    const data = variant === "data-optional" ? (payload.data ?? {}) : payload.data;

    const typeError = (field: string, expected: string): StandInResponse => errorA(422, "validation_error", `${field} must be ${expected}`);
    if (typeof to !== "string") return typeError("to", "a string");
    if (typeof templateId !== "string") return typeError("template_id", "a string");
    if (!isObject(data)) return typeError("data", "an object");
    for (const [name, value] of Object.entries(data)) {
      if (typeof value !== "string" && !isStringArray(value)) return typeError(`data.${name}`, "a string or an array of strings");
    }
    if (cc !== undefined && !isStringArray(cc)) return typeError("cc", "an array of strings");
    if (bcc !== undefined && !isStringArray(bcc)) return typeError("bcc", "an array of strings");
    if (replyTo !== undefined && typeof replyTo !== "string") return typeError("reply_to", "a string");
    if (subject !== undefined && typeof subject !== "string") return typeError("subject", "a string");

    // §4.1 rule 3 names the code for `to`; the other addresses get the generic validation code.
    if (!isEmailAddress(to)) return errorA(422, "invalid_recipient", "Invalid recipient email address in 'to'");
    for (const [field, list] of [
      ["cc", cc],
      ["bcc", bcc],
    ] as const) {
      const index = list?.findIndex((address) => !isEmailAddress(address)) ?? -1;
      if (index >= 0) return errorA(422, "validation_error", `${field}[${index}] is not a valid email address`);
    }
    if (replyTo !== undefined && !isEmailAddress(replyTo)) return errorA(422, "validation_error", "reply_to is not a valid email address");

    // §4.1 rule 2: a message that says the template ID is invalid; 404 is this service's pick of "a 4xx".
    const template = TEMPLATES.get(templateId);
    if (template === undefined) return errorA(404, "template_not_found", `Invalid template ID: ${templateId}`);

    // §2.2: each key of data must equal a placeholder name.
    const stray = Object.keys(data).find((name) => !template.placeholders.has(name));
    if (stray !== undefined) return errorA(422, "validation_error", `data.${stray} is not a placeholder of template ${templateId}`);

    // §4.1 rule 4: a given subject replaces the default one as is (it is not itself rendered).
    const values = data as Record<string, string | string[]>;
    const messageId = randomUUID();
    sent.push({ to, template_id: templateId, subject: subject ?? render(template.subject, values), message_id: messageId });
    // Response shape A (§2.3); "success-without-status" drops the one member the spec shows but a client might not need.
    return {
      status: 200,
      body: variant === "success-without-status" ? { success: true, message_id: messageId } : { success: true, message_id: messageId, status: "queued" },
    };
  }

  /** The response with the key's rate-limit fields, when the options ask for them. */
  function withLimitFields(req: IncomingMessage, response: StandInResponse): StandInResponse {
    const key = bearerKey(req.headers.authorization);
    if (limiter === undefined || limit.fields === undefined || key === undefined) return response;
    const { remaining, resetSeconds } = limiter.state(key, Date.now());
    const fields: Record<string, string> =
      limit.fields === "policy"
        ? { "RateLimit-Policy": `"default";q=${String(limit.requests)};w=${String(limit.windowSeconds)}` }
        : limit.fields === "ietf"
          ? { RateLimit: `"default";r=${String(remaining)};t=${String(resetSeconds)}` }
          : { "X-RateLimit-Remaining": String(remaining), "X-RateLimit-Reset": String(resetSeconds) };
    return { ...response, headers: { ...fields, ...response.headers } };
  }

  function respond(res: ServerResponse, record: ReceivedRequest, { status, body, headers }: StandInResponse): void {
    if (res.headersSent || res.destroyed) return;
    // Every body carries a request_id the spec never shows (§2.3/§7 list no "only these" rule), to catch clients or
    // checks that demand exactly the documented members.
    const text = JSON.stringify({ ...body, request_id: `req_${randomBytes(12).toString("hex")}` });
    record.status = status;
    res.writeHead(status, { ...headers, "Content-Type": "application/json; charset=utf-8", "Content-Length": String(Buffer.byteLength(text)) });
    res.end(text);
  }

  const server = createServer((req, res) => {
    // Pushed on arrival so `received` keeps arrival order even when responses overtake each other.
    const record: ReceivedRequest = { method: req.method ?? "", path: req.url ?? "", headers: { ...req.headers }, body: "", status: 0 };
    received.push(record);
    void (async () => {
      const { text, tooLarge } = await readBody(req);
      record.body = text;
      // The query string is not part of the route; only POST /send exists and the spec shows nothing else, so no Allow either.
      const pathname = (req.url ?? "").split("?")[0];
      if (req.method !== "POST" || pathname !== "/send") return errorB(404, "Not found");
      return withLimitFields(req, handleSend(req, text, tooLarge));
    })().then(
      (result) => respond(res, record, result),
      // A crash in the handler is the service's failure, responded like §7's server-side failure.
      () => respond(res, record, errorB(500, "Internal server error")),
    );
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });

  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    sent,
    close: async () => {
      // Kept-alive sockets would hold server.close() open forever.
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
