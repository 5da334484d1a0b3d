// A library call held to the check its /_mock route runs (the operation's, from admin.yaml): the
// input as the route would receive it, refused in the route's words, each field named as the library spells it.

import { EMPTY_PARAMETER, operationChecks, UNKNOWN_PARAMETER, type OperationChecks } from "../contract/operation-checks.js";
import type { HttpMethod } from "../contract/document-pointers.js";
import type { Contract } from "../contract/load.js";
import { ContractRefusal } from "../contract/refusal.js";
import type { Violation } from "../errors.js";
import { toApiError } from "../http/validation-errors.js";

/** The library's name of each wire key it spells otherwise (`template_id` -> `templateId`); a key not named is spelt alike. */
export type LibraryNames = Readonly<Record<string, string>>;

/** What the library gives an operation: query fields and path parameters by their library names, or a body. */
export interface LibraryInput {
  /** Fields left undefined are left out, as a query leaves them out. */
  query?: object;
  params?: Readonly<Record<string, unknown>>;
  body?: unknown;
}

/** The request the route would have read: a query of text, path parameters, a body as JSON carries it. */
export interface RouteInput {
  query: Record<string, string | string[]>;
  params: Record<string, string>;
  body: unknown;
}

export interface RouteCheck {
  /** The input as the route reads it; throws the route's `invalid_request` ApiError when its check refuses it. */
  check(input: LibraryInput): RouteInput;
  /** The path's `{id}` as the route reads it, checked alike. */
  id(id: unknown): string;
}

/**
 * Marks a wire key the library spells otherwise, so that the check sees a key it does not know:
 * `per_seconds` given to the library is a typo there, as `perSeconds` is in a PATCH body.
 */
const FOREIGN = "\u0000";

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Both ways between the library's names and the wire's, for one operation. */
function namingOf(names: LibraryNames) {
  const wireNameOf: Readonly<Record<string, string>> = Object.fromEntries(Object.entries(names).map(([wire, library]) => [library, wire]));
  const wireKey = (key: string): string => {
    if (Object.hasOwn(wireNameOf, key)) return wireNameOf[key] ?? key;
    return Object.hasOwn(names, key) ? `${FOREIGN}${key}` : key;
  };
  const libraryKey = (key: string): string => {
    if (key.startsWith(FOREIGN)) return key.slice(FOREIGN.length);
    return Object.hasOwn(names, key) ? (names[key] ?? key) : key;
  };
  /** Every key of every object in `value` by its wire name. */
  const renamed = (value: unknown): unknown =>
    isMapping(value) ? Object.fromEntries(Object.entries(value).map(([key, inner]) => [wireKey(key), renamed(inner)])) : value;
  // A rule's `respond` body may be large and deep: walked only when some key is spelt otherwise.
  const toWire = Object.keys(names).length === 0 ? (value: unknown) => value : renamed;
  /** `/rate_limit/per_seconds` -> `/rateLimit/perSeconds`. */
  const libraryPointer = (pointer: string): string =>
    pointer
      .split("/")
      .map((token) => libraryKey(token.replaceAll("~1", "/").replaceAll("~0", "~")).replaceAll("~", "~0").replaceAll("/", "~1"))
      .join("/");
  return { wireKey, libraryKey, toWire, libraryPointer };
}

/** A value as a query carries it: text (a list stays a list, as a repeated name is one); a `Date` as RFC 3339. */
function queryText(value: unknown): string | string[] {
  if (Array.isArray(value)) return value.map((item) => String(item));
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? String(value) : value.toISOString();
  return String(value);
}

/** The body as JSON carries it: undefined fields gone, NaN as null, as the route would parse it. */
function asJson(value: unknown): unknown {
  const text = JSON.stringify(value) as string | undefined;
  return text === undefined ? undefined : JSON.parse(text);
}

/**
 * The refusal with the library's names: a query field or path parameter is a field of the call's
 * input (`limit`, not `query.limit`), an unknown one is an unknown field (with the one meant), an
 * empty one must not be empty.
 */
function inLibraryNames(refusal: ContractRefusal, naming: ReturnType<typeof namingOf>): ContractRefusal {
  const issues = refusal.issues.map((issue): Violation => {
    const path = `/body${naming.libraryPointer(issue.path.replace(/^\/(body|query|params)(?=\/|$)/, ""))}`;
    if (issue.keyword === UNKNOWN_PARAMETER) return { ...issue, path, keyword: "additionalProperties", known: issue.known?.map(naming.libraryKey) };
    if (issue.keyword === EMPTY_PARAMETER) return { ...issue, path, keyword: "minLength" };
    // The keys an unknown key's object takes are keys too; an enum's values are not.
    const known = issue.known !== undefined && issue.keyword === "additionalProperties" ? issue.known.map(naming.libraryKey) : issue.known;
    return { ...issue, path, ...(known !== undefined && { known }) };
  });
  return new ContractRefusal(refusal.kind, refusal.message, issues, refusal.unlisted);
}

/** The check of `method path` in `contract`, built at the first call (the /_mock routes have compiled its validators). */
export function routeCheck(contract: Contract, method: HttpMethod, path: string, names: LibraryNames = {}): RouteCheck {
  const naming = namingOf(names);
  let checks: OperationChecks | undefined;
  const check = (input: LibraryInput): RouteInput => {
    const query = Object.fromEntries(
      Object.entries(input.query ?? {})
        .filter(([, value]) => value !== undefined)
        .map(([key, value]) => [naming.wireKey(key), queryText(value)]),
    );
    const params = Object.fromEntries(Object.entries(input.params ?? {}).map(([key, value]) => [key, String(value)]));
    const body = input.body === undefined ? undefined : asJson(naming.toWire(input.body));
    checks ??= operationChecks(contract, path, method);
    // Sent as JSON, as every /_mock body is: an operation without a body never reads the type.
    const refusal = checks.request({ query, params, headers: {}, contentType: "application/json", body });
    if (refusal) throw toApiError(inLibraryNames(refusal, naming), input.body ?? { ...input.query, ...input.params });
    return { query, params, body };
  };
  return { check, id: (id) => check({ params: { id } }).params.id ?? String(id) };
}
