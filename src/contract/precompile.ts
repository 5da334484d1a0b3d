// Run by `npm run build`: records in dist/ what a started mock would otherwise check or compile
// itself: the shipped contracts (checked), their schemas and sendmock's own input checks (compiled),
// and the shipped templates (parsed).

import { configSchema } from "../config.js";
import { recordPrecompiledValidators } from "./engine.js";
import { recordCheckedContracts } from "./load.js";
import { recordParsedTemplates } from "./parsed-templates.js";
import { RULE_INPUT_COMPONENTS } from "./rule-inputs.js";

export async function recordBuildArtifacts(): Promise<void> {
  await recordPrecompiledValidators([configSchema], Object.values(RULE_INPUT_COMPONENTS));
  await recordCheckedContracts();
  await recordParsedTemplates();
}
