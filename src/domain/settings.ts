// The settings that may change while the mock runs (PATCH /_mock/config), and the store that
// keeps them: in memory for one mock, in Redis for replicas that must all respond alike.

import type { RateLimitOptions } from "./rate-limiter.js";
import type { ResponseShape } from "../wire.js";

export interface RuntimeSettings {
  readonly responseShape: ResponseShape;
  readonly strictData: boolean;
  readonly rateLimit: RateLimitOptions | null;
}

/** The settings a run-time change names; those it leaves out keep their value. */
export type SettingsChange = Partial<RuntimeSettings>;

export interface SettingsStore {
  /** Read on every request, so it stays synchronous and cheap: a shared store responds from a copy it keeps fresh. */
  current(): RuntimeSettings;
  /** Makes the change for every mock sharing the store; returns the settings in force here once it is stored. */
  update(change: SettingsChange): Promise<RuntimeSettings>;
  /** Drops every change: each mock sharing the store goes back to its own start-up settings. */
  reset(): Promise<RuntimeSettings>;
}

/** The start-up settings with the changes made since (a change naming a setting as undefined leaves it alone). */
export function withChanges(startUp: RuntimeSettings, change: SettingsChange): RuntimeSettings {
  return {
    responseShape: change.responseShape ?? startUp.responseShape,
    strictData: change.strictData ?? startUp.strictData,
    rateLimit: change.rateLimit !== undefined ? change.rateLimit : startUp.rateLimit,
  };
}
