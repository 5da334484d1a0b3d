// /_mock/reset: the whole mock back to its config, in one call.

import express from "express";

export interface ResetRoutesDeps {
  reset: () => Promise<void>;
}

export function createResetRoutes(deps: ResetRoutesDeps): express.Router {
  const router = express.Router();
  router.post("/_mock/reset", async (_req, res) => {
    await deps.reset();
    res.status(204).end();
  });
  return router;
}
