// What the declaration of the config keys makes: the schema every source is checked against, and the options' types.

import { Type, type TOptional, type TSchema } from "typebox";
import { SETTINGS, type DeclaredSetting } from "./declaration.js";

export type SettingKey = keyof typeof SETTINGS;

/** Every key with its declaration, in the declaration's order. */
export const DECLARED_SETTINGS = Object.entries(SETTINGS) as [SettingKey, DeclaredSetting][];

/** The config file's keys (snake_case); flags and options are checked against it too. */
export const configSchema = Type.Object(
  Object.fromEntries(DECLARED_SETTINGS.map(([key, declaration]) => [key, Type.Optional(declaration.schema as TSchema)])) as Record<SettingKey, TOptional>,
  { additionalProperties: false },
);

/** `per_seconds` -> `perSeconds` */
export type CamelCase<S extends string> = S extends `${infer Head}_${infer Tail}` ? `${Head}${Capitalize<CamelCase<Tail>>}` : S;

/** A mapping's keys in camelCase, one level down (lists and null as they are). */
type CamelKeys<T> = T extends readonly unknown[] | null ? T : T extends object ? { [K in keyof T as K extends string ? CamelCase<K> : K]: T[K] } : T;

/** A key's value as a config file writes it. */
type FileValue<K extends SettingKey> = Exclude<(typeof SETTINGS)[K]["value"], undefined>;

/** A key's value as the library's options take it. */
export type OptionValue<K extends SettingKey> = (typeof SETTINGS)[K] extends { keptAsGiven: true } ? FileValue<K> : CamelKeys<FileValue<K>>;

/** The config keys as options of `startSendMock` / `createSendMock`: camelCase, all optional. */
export type SettingOptions = { [K in SettingKey as CamelCase<K>]?: OptionValue<K> };

/** `lifecycle` in the config, in camelCase. */
export type LifecycleOptions = OptionValue<"lifecycle">;

export function camelToSnake(key: string): string {
  return key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

export function snakeToCamel(key: string): string {
  return key.replace(/_([a-z])/g, (_match, letter: string) => letter.toUpperCase());
}

/** A mapping's keys renamed one level down (lists and null as they are): `{perSeconds}` <-> `{per_seconds}`. */
export function renamedOneLevel(value: unknown, rename: (key: string) => string): unknown {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([key, inner]) => [rename(key), inner]));
}

/** The keys whose values keep their keys as given (snake_case in the library too). */
export const KEPT_AS_GIVEN: ReadonlySet<string> = new Set(
  DECLARED_SETTINGS.flatMap(([key, declaration]) => (declaration.keptAsGiven === true ? [key, snakeToCamel(key)] : [])),
);

/** The keys a setting's value may have, by its schema (an object, or a union holding one): `rate_limit` -> `requests`, `per_seconds`, `burst`. */
function innerKeysOf(schema: object): string[] {
  const { properties, anyOf } = schema as { properties?: object; anyOf?: object[] };
  return [...Object.keys(properties ?? {}), ...(anyOf ?? []).flatMap(innerKeysOf)];
}

/** Each setting's keys inside its value as the library spells them, where it renames them: a mapping not kept as given, as `OptionValue` types it. */
const RENAMED_INSIDE: ReadonlyMap<string, readonly string[]> = new Map(
  DECLARED_SETTINGS.flatMap(([key, declaration]) => (declaration.keptAsGiven === true ? [] : [[key, innerKeysOf(declaration.schema)] as const])).filter(
    ([, inner]) => inner.length > 0,
  ),
);

/** Whether the library spells the keys inside `key`'s value in camelCase too (`rateLimit.perSeconds`). */
export function renamesInside(key: string): boolean {
  return RENAMED_INSIDE.has(key);
}

/** The library's name of each of `keys`, and of each key inside their values, where it is not the file's: `{ rate_limit: "rateLimit", per_seconds: "perSeconds" }`. */
export function libraryNamesOf(keys: readonly SettingKey[]): Record<string, string> {
  const names = keys.flatMap((key) => [key, ...(RENAMED_INSIDE.get(key) ?? [])]);
  const renamed = names.map((name): [string, string] => [name, snakeToCamel(name)]);
  return Object.fromEntries(renamed.filter(([name, libraryName]) => name !== libraryName));
}
