// Fault rules in memory: the fault plan over a memory rule book.

import { createFaultPlan, FAULT_RULES, type FaultPlan, type FaultPlanOptions } from "../../domain/faults.js";
import { createMemoryRuleBook } from "./rule-book.js";

export function createMemoryFaultPlan(options: FaultPlanOptions): FaultPlan {
  return createFaultPlan(createMemoryRuleBook(FAULT_RULES, options));
}
