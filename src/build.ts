// Run by `npm run build`: records the build's artifacts in dist/ (contract/precompile.ts), with
// the config's schema, which the build compiles ahead beside the rules' components; and copies
// the caniemail database the message checks read (message-checks/caniemail-data.ts says why).

import { configSchema } from "./config/schema.js";
import { recordBuildArtifacts } from "./contract/precompile.js";
import { copyCaniemail } from "./message-checks/caniemail-data.js";

export const recordBuild = async (): Promise<void> => {
  await recordBuildArtifacts([configSchema]);
  copyCaniemail();
};
