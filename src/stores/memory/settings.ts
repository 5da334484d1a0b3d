// The run-time settings of one mock in its own process.

import { withChanges, type RuntimeSettings, type SettingsStore } from "../../domain/settings.js";

export function createMemorySettingsStore(startUp: RuntimeSettings): SettingsStore {
  let settings = startUp;
  return {
    current: () => settings,
    update(change) {
      settings = withChanges(settings, change);
      return Promise.resolve(settings);
    },
    reset() {
      settings = startUp;
      return Promise.resolve(settings);
    },
  };
}
