// A run-time change of the settings, from PATCH /_mock/config or from the library's
// `mock.settings.update`: both held to admin.yaml's ConfigPatch by one check, refused in its words.

import type { OperationChecks } from "../contract/operation-checks.js";
import { ContractRefusal } from "../contract/refusal.js";
import type { SettingsChange, SettingsStore } from "../domain/settings.js";
import type { ConfigPatch } from "../wire.js";
import { toApiError } from "./validation-errors.js";
import { rateLimitOptions } from "./views.js";

/** The change a patch asks for, once the contract took it: keys left out keep their value. */
export function settingsChangeOf(patch: ConfigPatch): SettingsChange {
  return {
    ...(patch.response_shape !== undefined && { responseShape: patch.response_shape }),
    ...(patch.strict_data !== undefined && { strictData: patch.strict_data }),
    ...(patch.rate_limit !== undefined && { rateLimit: rateLimitOptions(patch.rate_limit) }),
  };
}

/** How the library spells the keys of a patch whose wire name differs (`requests` and `burst` are the same). */
const LIBRARY_NAME_OF: Readonly<Record<string, string>> = {
  response_shape: "responseShape",
  strict_data: "strictData",
  rate_limit: "rateLimit",
  per_seconds: "perSeconds",
};
const WIRE_NAME_OF: Readonly<Record<string, string>> = Object.fromEntries(Object.entries(LIBRARY_NAME_OF).map(([wire, library]) => [library, wire]));

/**
 * Marks a key the library does not spell that way, so that the contract sees a key it does not
 * know: `per_seconds` given to the library is a typo there, as `perSeconds` is in a PATCH body.
 */
const FOREIGN = "\u0000";

function wireKey(key: string): string {
  if (Object.hasOwn(WIRE_NAME_OF, key)) return WIRE_NAME_OF[key] ?? key;
  return Object.hasOwn(LIBRARY_NAME_OF, key) ? `${FOREIGN}${key}` : key;
}

function libraryKey(key: string): string {
  if (key.startsWith(FOREIGN)) return key.slice(FOREIGN.length);
  return Object.hasOwn(LIBRARY_NAME_OF, key) ? (LIBRARY_NAME_OF[key] ?? key) : key;
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function renamed(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).map(([key, inner]) => [wireKey(key), inner]));
}

/** The change as a PATCH body: the settings and the rate limit's keys in their wire names. */
function patchOf(change: unknown): unknown {
  if (!isMapping(change)) return change;
  const patch = renamed(change);
  if (isMapping(patch.rate_limit)) patch.rate_limit = renamed(patch.rate_limit);
  return patch;
}

/** `/body/rate_limit/per_seconds` -> `/body/rateLimit/perSeconds`: each key of a pointer as the library spells it. */
function libraryPointer(pointer: string): string {
  return pointer
    .split("/")
    .map((token) => libraryKey(token.replaceAll("~1", "/").replaceAll("~0", "~")).replaceAll("~", "~0").replaceAll("/", "~1"))
    .join("/");
}

function inLibraryNames(refusal: ContractRefusal): ContractRefusal {
  const issues = refusal.issues.map((issue) => ({
    ...issue,
    path: libraryPointer(issue.path),
    // The keys an unknown key's object takes are keys too; an enum's values are not.
    ...(issue.known !== undefined && issue.keyword === "additionalProperties" && { known: issue.known.map(libraryKey) }),
  }));
  return new ContractRefusal(refusal.kind, refusal.message, issues);
}

/**
 * The settings handle of the library: a change goes through PATCH /_mock/config's own check (the
 * operation's, from admin.yaml), and a refusal is the ApiError PATCH answers, its keys named as
 * the library spells them: `Invalid request: rateLimit.perSeconds is required`.
 */
export function checkedSettings(store: SettingsStore, patchChecks: OperationChecks): SettingsStore {
  return {
    current: () => store.current(),
    reset: () => store.reset(),
    async update(change) {
      const patch = patchOf(change);
      const refusal = patchChecks.request({ query: {}, params: {}, headers: {}, contentType: "application/json", body: patch });
      if (refusal) throw toApiError(inLibraryNames(refusal), change);
      return store.update(settingsChangeOf(patch as ConfigPatch));
    },
  };
}
