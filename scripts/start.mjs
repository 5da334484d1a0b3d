// `npm start`: runs `sendmock serve` from dist/, rebuilding first only when the TypeScript sources
// changed since the last build.
//
// Running `tsc` before every start made `npm start` take 7-26 s although `npm install` had just
// built; comparing modification times of src/ with the build's last output takes a few
// milliseconds. The CLI is imported into this process rather than spawned: a second Node start
// would cost another ~50 ms.

import { spawnSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
// Written last by `npm run build`, after tsc succeeded: its time is the time of the last good build.
const BUILD_OUTPUT = path.join(ROOT, "dist", "checked-contracts.json");
const BUILD_INPUTS = ["package.json", "tsconfig.json", "tsconfig.build.json"];

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

const sourcesTime = Math.max(newestSourceTime(path.join(ROOT, "src")), ...BUILD_INPUTS.map((file) => statSync(path.join(ROOT, file)).mtimeMs));
if (sourcesTime > lastBuildTime()) {
  process.stderr.write("sendmock: src/ changed since the last build; building (npm run build)\n");
  const build = spawnSync("npm", ["run", "build", "--silent"], { cwd: ROOT, stdio: "inherit", shell: process.platform === "win32" });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

process.argv = [process.argv[0] ?? process.execPath, path.join(ROOT, "dist", "cli.js"), "serve", ...process.argv.slice(2)];
await import(pathToFileURL(path.join(ROOT, "dist", "cli.js")).href);
