// /_mock/health: responds while the server is up, for a test runner or a container to wait on.

import express from "express";

export function createHealthRoutes(): express.Router {
  const router = express.Router();
  router.get("/_mock/health", (_req, res) => {
    res.json({ ok: true });
  });
  return router;
}
