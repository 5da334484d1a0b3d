// Run by `npm run build`: records in dist/ what a started mock would otherwise check or compile
// itself: the shipped contracts (checked), their schemas and sendmock's own input checks (compiled),
// and the shipped templates (parsed).

import { configSchema } from "../config.js";
import { FAULT_RULE_SCHEMA } from "../domain/faults.js";
import { OUTCOME_RULE_SCHEMA } from "../domain/outcomes.js";
import { WEBHOOK_INPUT_SCHEMA } from "../domain/webhooks.js";
import { recordPrecompiledValidators } from "./engine.js";
import { recordCheckedContracts } from "./load.js";
import { recordParsedTemplates } from "./parsed-templates.js";

export async function recordBuildArtifacts(): Promise<void> {
  await recordPrecompiledValidators([configSchema, FAULT_RULE_SCHEMA, OUTCOME_RULE_SCHEMA, WEBHOOK_INPUT_SCHEMA]);
  await recordCheckedContracts();
  await recordParsedTemplates();
}
