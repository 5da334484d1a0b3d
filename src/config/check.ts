// Settings checked against the declaration's schema, and a problem told the way its source spells keys.

import { listedRuleProblem } from "../contract/rule-inputs.js";
import { describeProblem, schemaCheck, type KeyNaming } from "../contract/schema-check.js";
import type { DeclaredSetting } from "./declaration.js";
import { configSchema, DECLARED_SETTINGS, KEPT_AS_GIVEN, renamesInside, snakeToCamel } from "./schema.js";

/** A setting that cannot be used; the message is one line naming where it came from. */
export class ConfigError extends Error {
  override name = "ConfigError";
}

/** Settings as written in a config file (snake_case keys). */
export type FileSettings = Record<string, unknown>;

/** Where options come from: the library's `startSendMock(options)`, or the command line's flags. */
export type OptionsSource = "options" | "command line";

/** `--shape` for response_shape: a key's flag as the declaration names it, else the key in kebab-case. */
function flagOf(key: string): string {
  const declared: DeclaredSetting | undefined = DECLARED_SETTINGS.find(([declaredKey]) => declaredKey === key)?.[1];
  return declared?.flag?.name.split(" ")[0] ?? `--${key.replaceAll("_", "-")}`;
}

/**
 * How each source spells a key, so a message names it as its user wrote it: a file as is; the
 * library in camelCase (the options and the keys of a mapping such as the rate limit; fault rules
 * and status codes are wire objects and keep their snake_case keys); the command line by its flag.
 */
export const NAMING: Record<OptionsSource | "file", KeyNaming> = {
  file: (key) => key,
  options: (key, parent) => (parent.length === 0 || (parent.length === 1 && renamesInside(String(parent[0]))) ? snakeToCamel(key) : key),
  "command line": (key, parent) => (parent.length === 0 ? flagOf(key) : key),
};

const checkSettings = schemaCheck(configSchema);

export function checkConfig(settings: FileSettings, source: string, naming: KeyNaming): void {
  const problem = checkSettings(settings) ?? listedRuleProblem(settings);
  if (problem) throw new ConfigError(`${source}: ${describeProblem(problem, naming, "the settings")}`);
}

/** Renames keys recursively, but not inside the values of keys the declaration keeps as given. */
export function renameKeys(value: unknown, rename: (key: string) => string): unknown {
  if (Array.isArray(value)) return value.map((item) => renameKeys(item, rename));
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(Object.entries(value).map(([key, inner]) => [rename(key), KEPT_AS_GIVEN.has(key) ? inner : renameKeys(inner, rename)]));
}
