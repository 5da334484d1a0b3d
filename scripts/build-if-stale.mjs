// Runs `npm run build` only when the TypeScript sources changed since the last build: for
// `npm start` (scripts/start.mjs) and the e2e tests' global setup, which both need dist/.
// Usage: node scripts/build-if-stale.mjs
//
// Running `tsc` before every start made `npm start` take 7-26 s although `npm install` had just
// built; comparing modification times of src/ with the build's last output takes a few
// milliseconds. The e2e setup built dist/ again after `npm install` had (9 s of CPU per run).

import { spawnSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
// Written last by `npm run build`, after tsc succeeded: its time is the time of the last good build.
const BUILD_OUTPUT = path.join(ROOT, "dist", "checked-contracts.json");
const BUILD_INPUTS = ["package.json", "tsconfig.json", "tsconfig.build.json", "tsdown.config.ts"];

/** Newest modification time under `folder`: its .ts files and its folders (a deleted or renamed file changes its folder's time). */
function newestSourceTime(folder) {
  let newest = statSync(folder).mtimeMs;
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const entryPath = path.join(folder, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSourceTime(entryPath));
    else if (entry.name.endsWith(".ts")) newest = Math.max(newest, statSync(entryPath).mtimeMs);
  }
  return newest;
}

function lastBuildTime() {
  try {
    return statSync(BUILD_OUTPUT).mtimeMs;
  } catch {
    return -Infinity;
  }
}

/** Builds when a source is newer than the last build; exits the process with the build's status if it fails. */
export function buildIfStale() {
  const sourcesTime = Math.max(newestSourceTime(path.join(ROOT, "src")), ...BUILD_INPUTS.map((file) => statSync(path.join(ROOT, file)).mtimeMs));
  if (sourcesTime <= lastBuildTime()) return;
  process.stderr.write("sendmock: src/ changed since the last build; building (npm run build)\n");
  const build = spawnSync("npm", ["run", "build", "--silent"], { cwd: ROOT, stdio: "inherit", shell: process.platform === "win32" });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) buildIfStale();
