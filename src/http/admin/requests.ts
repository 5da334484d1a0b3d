// /_mock/requests: the journal of the calls to POST /send, newest first.

import express from "express";
import type { Journal } from "../../domain/journal.js";
import { queryNumber } from "./params.js";

export interface RequestRoutesDeps {
  journal: Pick<Journal, "list">;
}

export function createRequestRoutes(deps: RequestRoutesDeps): express.Router {
  const router = express.Router();

  router.get("/_mock/requests", async (req, res) => {
    const { requests, total, truncated } = await deps.journal.list({ limit: queryNumber(req.query, "limit") });
    res.json(truncated ? { requests, total, truncated } : { requests, total });
  });

  return router;
}
