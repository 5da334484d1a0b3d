// Fault rules in Redis: the fault plan over a Redis rule book shared by every replica.

import { createFaultPlan, FAULT_RULES, type FaultPlan, type FaultPlanOptions } from "../../domain/faults.js";
import type { RedisConnection } from "./connection.js";
import { createRedisRuleBook } from "./rule-book.js";

export async function createRedisFaultPlan(connection: RedisConnection, options: FaultPlanOptions): Promise<FaultPlan> {
  return createFaultPlan(await createRedisRuleBook(connection, FAULT_RULES, options));
}
