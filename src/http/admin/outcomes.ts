// /_mock/outcomes: the rules that decide what happens to a captured message.

import type express from "express";
import type { OutcomeControl } from "../../domain/outcomes.js";
import { createRuleRoutes } from "./rule-routes.js";

export interface OutcomeRoutesDeps {
  /** Keeps a rule the contract check held to OutcomeRuleInput. */
  outcomes: OutcomeControl;
}

export function createOutcomeRoutes(deps: OutcomeRoutesDeps): express.Router {
  return createRuleRoutes({ path: "/_mock/outcomes", listKey: "outcomes", noun: "outcome rule", control: deps.outcomes });
}
