// Builds dist/ before the e2e project when a source changed since the last build (as `npm start`
// does), so its tests start the real `sendmock` bin as built from the sources under test.

import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

export default function buildWhenStale(): void {
  const root = fileURLToPath(new URL("../..", import.meta.url));
  execFileSync(process.execPath, ["scripts/build-if-stale.mjs"], { cwd: root, stdio: "inherit" });
}
