// The settings that may change at run time between the wire and the domain, each way once: a change
// as PATCH /_mock/config and the library's `mock.settings.update` read it once admin.yaml's
// ConfigPatch check took it, and the settings in force as `GET /_mock/config` shows them.

import { rateLimitOptionsOf, rateLimitSettingOf } from "../config/rate-limit.js";
import type { RuntimeSettings, SettingsChange } from "../domain/settings.js";
import type { ConfigPatch } from "../wire.js";

/** The change a patch asks for, once the contract took it: keys left out keep their value. */
export function settingsChangeOf(patch: ConfigPatch): SettingsChange {
  return {
    ...(patch.response_shape !== undefined && { responseShape: patch.response_shape }),
    ...(patch.strict_data !== undefined && { strictData: patch.strict_data }),
    ...(patch.rate_limit !== undefined && { rateLimit: rateLimitOptionsOf(patch.rate_limit) }),
  };
}

/** The settings in force, keyed as a patch names them: `settingsChangeOf`'s way back. */
export function settingsViewOf(settings: RuntimeSettings): Required<ConfigPatch> {
  return { response_shape: settings.responseShape, strict_data: settings.strictData, rate_limit: rateLimitSettingOf(settings.rateLimit) };
}
