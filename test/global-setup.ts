// Builds dist/ once before the suite, so the CLI tests start the real `sendmock` bin.

import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

export default function buildOnce(): void {
  const root = fileURLToPath(new URL("..", import.meta.url));
  execFileSync(process.execPath, ["node_modules/typescript/bin/tsc", "-p", "tsconfig.build.json"], { cwd: root, stdio: "inherit" });
}
