// The settings that may change while the mock runs, and their start-up values for reset.

import type { RateLimitOptions } from "./rate-limiter.js";
import type { ResponseShape } from "../wire.js";

export interface RuntimeSettings {
  readonly responseShape: ResponseShape;
  readonly strictData: boolean;
  readonly rateLimit: RateLimitOptions | null;
}

export interface SettingsStore {
  /** Read on every request, so it stays synchronous and cheap. */
  current(): RuntimeSettings;
  update(patch: Partial<RuntimeSettings>): RuntimeSettings;
  reset(): RuntimeSettings;
}

export function createSettingsStore(initial: RuntimeSettings): SettingsStore {
  let settings = initial;
  return {
    current: () => settings,
    update(patch) {
      settings = { ...settings, ...patch };
      return settings;
    },
    reset() {
      settings = initial;
      return settings;
    },
  };
}
