// The send and inspection APIs' refusals: the contract's violations and the body parser's errors, worded as an ApiError a client reads.

import { excerpt } from "../domain/excerpt.js";
import { valueAt } from "../domain/json.js";
import { StoreUnavailableError } from "../domain/store-errors.js";
import { ContractRefusal } from "../contract/refusal.js";
import { alternatives } from "../contract/schema-check.js";
import { closestKey, meantValue } from "../domain/suggestion.js";
import { DomainFailure } from "../domain/failure.js";
import { ApiError, apiErrorOf, type Violation } from "../errors.js";

const REQUIRED_SEND_FIELDS = new Set(["to", "template_id", "data"]);
const RECIPIENT_PATH = /^\/(to|cc\/\d+|bcc\/\d+)$/;

/** `/cc/1` -> `cc[1]`, `/data/name` -> `data.name`: how a person names a field (cut: a name may be as long as the body). */
export function fieldName(pointer: string): string {
  return excerpt(
    pointer
      .split("/")
      .slice(1)
      .map((part) => part.replaceAll("~1", "/").replaceAll("~0", "~"))
      .reduce((name, part) => (/^\d+$/.test(part) ? `${name}[${part}]` : name ? `${name}.${part}` : part), ""),
  );
}

/** What a value of each format the contracts use looks like; `since` was told it was not an email address. */
const FORMAT_PHRASES: Partial<Record<string, string>> = {
  email: "is not a valid email address",
  "date-time": "must be a date and time such as 2026-11-22T09:26:00Z (RFC 3339)",
};

const TYPE_WORDS: Partial<Record<string, string>> = { null: "null", integer: "a whole number" };
const COMPARISON_WORDS: Partial<Record<string, string>> = {
  minimum: "at least",
  maximum: "at most",
  exclusiveMinimum: "more than",
  exclusiveMaximum: "less than",
};

/** `must be a string or null`: the types a value may be, as the send API words them. */
function typeWords(types: readonly string[]): string {
  if (types.length === 2 && types[0] === "string" && types[1] === "array") return "must be a string or an array of strings";
  return `must be ${types.map((type) => TYPE_WORDS[type] ?? `${/^[aeiou]/.test(type) ? "an" : "a"} ${type}`).join(" or ")}`;
}

/** What is wrong with a field, after its name; `body` is the request's, for the words that quote the value at fault. */
function issueWords(issue: Violation, body: unknown): string {
  switch (issue.keyword) {
    case "format":
      return FORMAT_PHRASES[issue.format ?? ""] ?? issue.message;
    case "type":
    case "oneOf":
    case "anyOf":
      return issue.types === undefined ? issue.message : typeWords(issue.types);
    case "minimum":
    case "maximum":
    case "exclusiveMinimum":
    case "exclusiveMaximum":
      return `must be ${COMPARISON_WORDS[issue.keyword] ?? ""} ${String(issue.limit)}`;
    case "minLength":
      return "must not be empty";
    case "enum": {
      const values = issue.known;
      if (values === undefined) return issue.message;
      return `must be ${alternatives(values)}${meantValue(valueAt(body, issue.path), values)}`;
    }
    case "pattern":
      // subject's pattern keeps it to one line, so it cannot split a mail header.
      return issue.path === "/subject" ? "must not contain a line break (CR or LF)" : issue.message;
    default:
      return issue.message.replace("must NOT", "must not");
  }
}

function shortJson(value: unknown): string {
  // JSON.stringify returns undefined for undefined, whatever its declared type says.
  const json = (JSON.stringify(value) as string | undefined) ?? String(value);
  return json.length > 80 ? `${json.slice(0, 77)}...` : json;
}

/** The violations of a request body with pointers into the body itself (`/to`, not `/body/to`), each place and keyword told once. */
function inBody(contractIssues: readonly Violation[]): Violation[] {
  const seen = new Set<string>();
  const issues: Violation[] = [];
  for (const item of contractIssues) {
    const path = item.path === "/body" ? "" : item.path.startsWith("/body/") ? item.path.slice(5) : item.path;
    const key = `${path} ${item.keyword ?? ""}`;
    if (seen.has(key)) continue;
    seen.add(key);
    issues.push({ ...item, path });
  }
  return issues;
}

/** The parent of a pointer (`/rate_limit/per_second` -> `/rate_limit`) and its last key. */
function splitPointer(pointer: string): [string, string] {
  const at = pointer.lastIndexOf("/");
  return [pointer.slice(0, at), pointer.slice(at + 1)];
}

/** The required keys each object misses, by the object's pointer: an unknown key beside one may be its typo. */
type MissingKeys = ReadonlyMap<string, string[]>;

function missingKeys(issues: readonly Violation[]): MissingKeys {
  const missing = new Map<string, string[]>();
  for (const issue of issues) {
    if (issue.keyword !== "required") continue;
    const [parent, key] = splitPointer(issue.path);
    missing.set(parent, [...(missing.get(parent) ?? []), key]);
  }
  return missing;
}

function violationOf(issue: Violation, missing: MissingKeys, body: unknown): Violation {
  const field = fieldName(issue.path) || "the body";
  if (issue.keyword === "required") return { path: issue.path, message: `${field} is required` };
  if (issue.keyword === "additionalProperties") {
    const [parent, key] = splitPointer(issue.path);
    // `per_seconds` for an unknown `per_second` when per_seconds is missing beside it; else the
    // closest of the keys the object takes (`delay_ms` for `delay`), as the config file says.
    const meant = closestKey(key, missing.get(parent) ?? []) ?? closestKey(key, issue.known ?? []);
    return { path: issue.path, message: `${field} is not a known field${meant === undefined ? "" : ` (did you mean ${meant}?)`}` };
  }
  return { path: issue.path, message: `${field} ${issueWords(issue, body)}` };
}

function isRecipientIssue(issue: Violation): boolean {
  return RECIPIENT_PATH.test(issue.path) && (issue.keyword === "format" || issue.keyword === "maxLength");
}

/**
 * A body can break the contract once per array item or key, hundreds of thousands of times
 * within body_limit: the response and the journal entry say enough to fix the request without
 * growing with it (an 11 MB response to a 1 MB body, before this bound).
 */
const VIOLATIONS_KEPT = 50;
const PROBLEMS_NAMED_IN_MESSAGE = 10;

/** `a; b; c; and 7 more`: the first issues described, and how many more there are (`unlisted` of them counted only). */
function listIssues(issues: readonly Violation[], describe: (issue: Violation) => string, separator: string, unlisted: number): string {
  const named = issues.slice(0, PROBLEMS_NAMED_IN_MESSAGE).map(describe);
  const more = issues.length - named.length + unlisted;
  return more > 0 ? `${named.join(separator)}${separator}and ${more} more` : named.join(separator);
}

/** A failed contract check of a send request: the most fundamental problem picks the code. */
function sendRequestError(refusal: ContractRefusal, body: unknown): ApiError {
  const issues = inBody(refusal.issues);
  const missing = missingKeys(issues);
  const violations = issues.slice(0, VIOLATIONS_KEPT).map((issue) => violationOf(issue, missing, body));
  const missingFields = issues.filter((issue) => issue.keyword === "required" && REQUIRED_SEND_FIELDS.has(fieldName(issue.path)));
  if (missingFields.length > 0) {
    const names = missingFields.map((issue) => fieldName(issue.path));
    return new ApiError("missing_required_field", `Missing required field${names.length > 1 ? "s" : ""}: ${names.join(", ")}`, { violations });
  }
  if (issues.length > 0 && issues.every(isRecipientIssue)) {
    const addresses = listIssues(issues, (issue) => `${fieldName(issue.path)} (${shortJson(valueAt(body, issue.path))})`, ", ", refusal.unlisted);
    return new ApiError("invalid_recipient", `Invalid recipient email address in ${addresses}`, { violations });
  }
  const problems = listIssues(issues, (issue) => violationOf(issue, missing, body).message, "; ", refusal.unlisted);
  return new ApiError("invalid_request", `Invalid request: ${problems}`, { violations });
}

/** A violation of sendmock's own response, for the bug report: the contract's words, an enum's values listed. */
const brokenResponseWords = (issue: Violation): string =>
  `${issue.path} ${issue.message}${issue.keyword === "enum" && issue.known ? `: ${issue.known.join(", ")}` : ""}`;

function refusalError(refusal: ContractRefusal, body: unknown): ApiError {
  switch (refusal.kind) {
    case "bad_request":
      return sendRequestError(refusal, body);
    case "broken_response": {
      const details = refusal.issues.map(brokenResponseWords).join("; ");
      return new ApiError("server_error", `sendmock broke its own contract (a bug in sendmock): ${details}`);
    }
    case "unsupported_media_type":
      return new ApiError("unsupported_media_type", "Unsupported media type: the body must be sent as application/json");
  }
}

/** zlib's errors (gzip, deflate) carry `Z_*` codes, the Brotli and Zstandard decoders `ERR_*` ones. */
const DECOMPRESSION_ERROR_CODE = /^(Z_|ERR__ERROR_|ERR_BROTLI|ERR_ZSTD)/;

function isDecompressionError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return error instanceof Error && typeof code === "string" && DECOMPRESSION_ERROR_CODE.test(code);
}

function hasType(error: unknown): error is { type: string } {
  return typeof error === "object" && error !== null && typeof (error as { type?: unknown }).type === "string";
}

/**
 * Turns whatever reached an error handler into an ApiError. `body` is the parsed request body,
 * for messages that quote the value at fault.
 */
export function toApiError(error: unknown, body: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof DomainFailure) return apiErrorOf(error);
  // The shared store is down: the request may be fine, so a retryable 503 that names the store.
  if (error instanceof StoreUnavailableError) return new ApiError("server_error", error.message, { status: 503 });
  if (error instanceof ContractRefusal) return refusalError(error, body);
  if (hasType(error)) {
    switch (error.type) {
      case "entity.parse.failed":
        return new ApiError("invalid_json", `Invalid JSON body: ${(error as unknown as Error).message}`);
      case "entity.too.large":
        return new ApiError("payload_too_large", `Request body is larger than the limit of ${String((error as { limit?: unknown }).limit)} bytes`);
      case "charset.unsupported":
      case "encoding.unsupported":
        return new ApiError("unsupported_media_type", `Unsupported body encoding: ${(error as unknown as Error).message}`);
      case "request.aborted":
        return new ApiError("invalid_request", "The request was aborted before its body arrived");
      default:
        break;
    }
  }
  const message = error instanceof Error ? error.message : String(error);
  if (isDecompressionError(error)) {
    return new ApiError("invalid_json", `Invalid JSON body: it could not be decompressed as its Content-Encoding says (${message})`);
  }
  const status = (error as { status?: unknown } | null)?.status;
  // Express marks what the client got wrong (an undecodable path, say) with a 4xx status.
  if (status === 404) return new ApiError("not_found", `Not found: ${message}`);
  if (typeof status === "number" && status >= 400 && status < 500) return new ApiError("invalid_request", `Invalid request: ${message}`);
  return new ApiError("server_error", `Internal error in sendmock: ${message}`, { cause: error });
}
