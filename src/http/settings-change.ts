// A run-time change of the settings, as PATCH /_mock/config and the library's `mock.settings.update`
// both read it once admin.yaml's ConfigPatch check took it.

import type { SettingsChange } from "../domain/settings.js";
import type { ConfigPatch } from "../wire.js";
import { rateLimitOptions } from "./views.js";

/** The change a patch asks for, once the contract took it: keys left out keep their value. */
export function settingsChangeOf(patch: ConfigPatch): SettingsChange {
  return {
    ...(patch.response_shape !== undefined && { responseShape: patch.response_shape }),
    ...(patch.strict_data !== undefined && { strictData: patch.strict_data }),
    ...(patch.rate_limit !== undefined && { rateLimit: rateLimitOptions(patch.rate_limit) }),
  };
}
