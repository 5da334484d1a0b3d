// /_mock/clock: the mock's clock, read and moved forward.

import express from "express";
import type { ClockControl } from "../../domain/clock.js";
import type { ClockAdvance, ClockView } from "../../wire.js";

export interface ClockRoutesDeps {
  clock: ClockControl;
}

export function createClockRoutes(deps: ClockRoutesDeps): express.Router {
  const { clock } = deps;
  const router = express.Router();

  const clockView = (): ClockView => ({ now: clock.now().toISOString(), offset_ms: clock.offsetMs() });

  router.get("/_mock/clock", (_req, res) => {
    res.json(clockView());
  });

  router.post("/_mock/clock", async (req, res) => {
    // The contract has checked the body (a ClockAdvance); advance checks the range again, for the library.
    await clock.advance((req.body as ClockAdvance).advance_ms);
    res.json(clockView());
  });

  return router;
}
