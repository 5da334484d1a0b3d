// Run by `npm run build`: records the build's artifacts in dist/ (contract/precompile.ts), with
// the config's schema, which the build compiles ahead beside the rules' components.

import { configSchema } from "./config/schema.js";
import { recordBuildArtifacts } from "./contract/precompile.js";

export const recordBuild = (): Promise<void> => recordBuildArtifacts([configSchema]);
