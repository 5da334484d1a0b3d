// /_mock/faults: the fault rules that POST /send tries after a header or a magic recipient.

import type express from "express";
import type { FaultControl } from "../../domain/faults.js";
import { createRuleRoutes } from "./rule-routes.js";

export interface FaultRoutesDeps {
  /** Checks what FaultRuleInput cannot say (the parameters of each kind, `respond` limits) before the plan keeps a rule. */
  faults: FaultControl;
}

export function createFaultRoutes(deps: FaultRoutesDeps): express.Router {
  return createRuleRoutes({ path: "/_mock/faults", listKey: "faults", noun: "fault rule", control: deps.faults });
}
