// Builds dist/ once before the e2e project, as `npm run build` does, so its tests start the real `sendmock` bin.

import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

export default function buildOnce(): void {
  const root = fileURLToPath(new URL("../..", import.meta.url));
  execFileSync(process.execPath, ["node_modules/typescript/bin/tsc", "-p", "tsconfig.build.json"], { cwd: root, stdio: "inherit" });
  // The contracts checked at build time, so a built mock skips checking them again at start-up.
  execFileSync(process.execPath, ["--input-type=module", "-e", "(await import('./dist/contract/load.js')).recordCheckedContracts()"], {
    cwd: root,
    stdio: "inherit",
  });
}
