// /_mock/sandboxes: the sandboxes in use, and forgetting one so that its name no longer counts toward max_sandboxes.

import express from "express";
import { DEFAULT_SANDBOX } from "../../domain/sandboxes.js";
import { ApiError } from "../../errors.js";
import type { SandboxList } from "../../wire.js";

export interface SandboxRoutesDeps {
  sandboxes: {
    names(): Promise<string[]>;
    forget(name: string): Promise<void>;
  };
  config: { maxSandboxes: number };
}

export function createSandboxRoutes(deps: SandboxRoutesDeps): express.Router {
  const router = express.Router();

  router.get("/_mock/sandboxes", async (_req, res) => {
    const list: SandboxList = { sandboxes: await deps.sandboxes.names(), max_sandboxes: deps.config.maxSandboxes };
    res.json(list);
  });

  router.delete("/_mock/sandboxes/:name", async (req, res) => {
    // The contract has checked the name's form.
    const { name } = req.params;
    if (name === DEFAULT_SANDBOX)
      throw new ApiError("invalid_request", `The default sandbox is never forgotten: POST /_mock/reset?sandbox=${DEFAULT_SANDBOX} empties it`);
    await deps.sandboxes.forget(name);
    res.status(204).end();
  });

  return router;
}
