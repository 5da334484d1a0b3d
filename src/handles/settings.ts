// `mock.settings` and `mock.config`: the settings PATCH /_mock/config changes, each change checked as
// PATCH checks it, and the settings the mock started with, as a read-only view.

import type { ResolvedConfig } from "../config/resolve.js";
import { DECLARED_SETTINGS, libraryNamesOf } from "../config/schema.js";
import type { Contract } from "../contract/load.js";
import type { SettingsStore } from "../domain/settings.js";
import { settingsChangeOf } from "../http/settings-change.js";
import type { ConfigPatch } from "../wire.js";
import { routeCheck } from "./route-checks.js";

/**
 * The run-time settings: `current()`, `update(change)` (checked as PATCH /_mock/config checks it:
 * an `invalid_request` ApiError in its words, keys in camelCase) and `reset()`.
 */
export type SettingsHandle = Pick<SettingsStore, "current" | "update" | "reset">;

type DeepReadonly<T> = T extends readonly (infer Item)[]
  ? readonly DeepReadonly<Item>[]
  : T extends object
    ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
    : T;

/** The settings a mock started with, resolved (camelCase: `capacity`, `maxBytes`, `lifecycle`, ...); read-only, without the log callbacks. */
export type SendMockConfig = DeepReadonly<Omit<ResolvedConfig, "log" | "requestLog">>;

/** The settings PATCH /_mock/config changes: those `GET /_mock/config` shows as in force now. */
const CHANGEABLE = DECLARED_SETTINGS.flatMap(([key, { view }]) => (view === "running" ? [key] : []));

export function createSettingsHandle(settings: SettingsStore, contract: Contract): SettingsHandle {
  const patching = routeCheck(contract, "patch", "/_mock/config", libraryNamesOf(CHANGEABLE));
  return {
    current: () => settings.current(),
    update: async (change) => settings.update(settingsChangeOf(patching.check({ body: change }).body as ConfigPatch)),
    reset: () => settings.reset(),
  };
}

function deepFrozen<T>(value: T): T {
  if (typeof value === "object" && value !== null) for (const inner of Object.values(value)) deepFrozen(inner);
  return Object.freeze(value);
}

/** A copy of `config` that no one can change, and that the mock's own config does not share. */
export function configViewOf(config: ResolvedConfig): SendMockConfig {
  // The callbacks are the only functions in it, and what a structured clone cannot copy.
  const settings = Object.fromEntries(Object.entries(config).filter(([key]) => key !== "log" && key !== "requestLog"));
  return deepFrozen(structuredClone(settings) as SendMockConfig);
}
