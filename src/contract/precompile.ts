// What `npm run build` records in dist/ that a started mock would otherwise check or compile
// itself: the shipped contracts (checked), their schemas and sendmock's own input checks
// (compiled), and the shipped templates (parsed). The input schemas are handed in by the build
// (src/build.ts): the contracts know nothing of the config.

import { recordPrecompiledValidators } from "./engine.js";
import { recordCheckedContracts } from "./load.js";
import { recordParsedTemplates } from "./parsed-templates.js";
import { RULE_INPUT_COMPONENTS } from "./rule-inputs.js";

export async function recordBuildArtifacts(inputSchemas: readonly object[]): Promise<void> {
  await recordPrecompiledValidators(inputSchemas, Object.values(RULE_INPUT_COMPONENTS));
  await recordCheckedContracts();
  await recordParsedTemplates();
}
