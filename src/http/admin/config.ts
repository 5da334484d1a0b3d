// /_mock/config: the configuration in effect, and the settings that may change at run time.

import express from "express";
import type { ResolvedConfig } from "../../config/resolve.js";
import type { KeyCheck } from "../../domain/api-keys.js";
import type { Outbox } from "../../domain/outbox.js";
import type { SettingsStore } from "../../domain/settings.js";
import type { ConfigPatch } from "../../wire.js";
import { settingsChangeOf } from "../settings-change.js";
import { configView } from "../views.js";

export interface ConfigRoutesDeps {
  config: ResolvedConfig;
  settings: Pick<SettingsStore, "current" | "update">;
  keys: KeyCheck;
  /** For the outbox's counts shown beside its limits. */
  outbox: Pick<Outbox, "stats">;
  listeningPort: () => number;
}

export function createConfigRoutes(deps: ConfigRoutesDeps): express.Router {
  const router = express.Router();

  const currentConfig = async () =>
    configView({
      config: deps.config,
      settings: deps.settings.current(),
      keys: deps.keys,
      stats: await deps.outbox.stats(),
      port: deps.listeningPort(),
    });

  router.get("/_mock/config", async (_req, res) => {
    res.json(await currentConfig());
  });

  router.patch("/_mock/config", async (req, res) => {
    // The contract has checked the body (a ConfigPatch); the store takes the change as given.
    await deps.settings.update(settingsChangeOf(req.body as ConfigPatch));
    res.json(await currentConfig());
  });

  return router;
}
