// What every settings store promises, whichever store keeps the settings: it starts with the
// start-up settings, a change names only what it changes, `current()` shows a change as soon as
// `update` resolves, and a reset brings the start-up settings back.

import { describe, expect, it } from "vitest";
import type { RuntimeSettings, SettingsStore } from "../../src/domain/settings.js";

export type MakeSettingsStore = (startUp: RuntimeSettings) => Promise<SettingsStore>;

export const startUpSettings: RuntimeSettings = { responseShape: "a", strictData: false, rateLimit: { requests: 5, perSeconds: 60 } };

/** @param makeSettingsStore a new store, with no change made, on every call */
export function describeSettingsContract(name: string, makeSettingsStore: MakeSettingsStore): void {
  describe(name, () => {
    it("starts with the start-up settings", async () => {
      const settings = await makeSettingsStore(startUpSettings);
      expect(settings.current()).toEqual(startUpSettings);
    });

    it("changes only the settings a change names, and shows it at once on current()", async () => {
      const settings = await makeSettingsStore(startUpSettings);

      const responded = await settings.update({ responseShape: "b" });

      const expected = { ...startUpSettings, responseShape: "b" };
      expect(responded).toEqual(expected);
      expect(settings.current()).toEqual(expected);
    });

    it("keeps earlier changes when a later one names other settings", async () => {
      const settings = await makeSettingsStore(startUpSettings);

      await settings.update({ strictData: true });
      await settings.update({ rateLimit: { requests: 3, perSeconds: 1, burst: 6 } });

      expect(settings.current()).toEqual({ responseShape: "a", strictData: true, rateLimit: { requests: 3, perSeconds: 1, burst: 6 } });
    });

    it("removes the rate limit with rateLimit: null, and leaves a setting named as undefined alone", async () => {
      const settings = await makeSettingsStore(startUpSettings);

      await settings.update({ rateLimit: null, strictData: undefined });

      expect(settings.current()).toEqual({ ...startUpSettings, rateLimit: null });
    });

    it("changes nothing on an empty change", async () => {
      const settings = await makeSettingsStore(startUpSettings);
      await settings.update({ responseShape: "b" });

      expect(await settings.update({})).toEqual({ ...startUpSettings, responseShape: "b" });
    });

    it("goes back to the start-up settings on reset, and takes changes again after it", async () => {
      const settings = await makeSettingsStore(startUpSettings);
      await settings.update({ responseShape: "b", strictData: true, rateLimit: null });

      expect(await settings.reset()).toEqual(startUpSettings);
      expect(settings.current()).toEqual(startUpSettings);

      await settings.update({ strictData: true });
      expect(settings.current()).toEqual({ ...startUpSettings, strictData: true });
    });
  });
}
