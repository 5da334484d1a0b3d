// Builds dist/ once before the e2e project, as `npm run build` does, so its tests start the real `sendmock` bin.

import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

export default function buildOnce(): void {
  const root = fileURLToPath(new URL("../..", import.meta.url));
  execFileSync(process.execPath, ["node_modules/typescript/bin/tsc", "-p", "tsconfig.build.json"], { cwd: root, stdio: "inherit" });
  // The checks compiled ahead and the contracts checked at build time (written last, as the
  // build's mark), so a built mock skips both at start-up.
  const record = "await (await import('./dist/contract/precompile.js')).recordBuildArtifacts();";
  execFileSync(process.execPath, ["--input-type=module", "-e", record], {
    cwd: root,
    stdio: "inherit",
  });
}
