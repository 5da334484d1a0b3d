// Run by `npm run build`: records in dist/ what a started mock would otherwise check or compile
// itself: the shipped contracts (checked), and their schemas (compiled).

import { recordCheckedContracts } from "./load.js";
import { recordPrecompiledSchemas } from "./schema-validator.js";

export async function recordBuildArtifacts(): Promise<void> {
  await recordPrecompiledSchemas();
  await recordCheckedContracts();
}
