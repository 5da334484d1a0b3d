// `npm run check:package` (and `prepublishOnly`): checks what `npm publish` would ship, from the
// tarball `npm pack` makes of the current build: every file package.json points at (exports,
// main, types, typesVersions, bin) and every file it lists is in it, publint finds nothing to
// say about it, and arethetypeswrong finds the types of each entry point right for both module
// systems (node10, node16 from CommonJS and from ESM, bundlers).
// Usage: node scripts/check-package.mjs   (after `npm run build`)

import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const manifest = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8"));

/** Runs `command` in the repository, its output shown; the exit status. */
function run(command, args) {
  return spawnSync(command, args, { cwd: ROOT, stdio: ["ignore", "inherit", "inherit"] }).status ?? 1;
}

/** A devDependency's bin as its own package.json names it, run with this node: no shell, no PATH lookup. */
function toolBin(name, bin) {
  // Not require.resolve: publint's `exports` do not include its package.json.
  const toolManifest = path.join(ROOT, "node_modules", name, "package.json");
  const bins = JSON.parse(readFileSync(toolManifest, "utf8")).bin;
  return path.join(path.dirname(toolManifest), typeof bins === "string" ? bins : bins[bin]);
}

/** The file paths in package.json's `exports` (every condition), `main`, `types`, `typesVersions` and `bin`. */
function pointedAt() {
  const targets = [];
  const walk = (value) => {
    if (typeof value === "string") targets.push(value);
    else if (Array.isArray(value)) value.forEach(walk);
    else if (value !== null && typeof value === "object") Object.values(value).forEach(walk);
  };
  walk([manifest.exports, manifest.main, manifest.types, manifest.typesVersions, manifest.bin]);
  return [...new Set(targets.map((target) => path.posix.normalize(target)))];
}

const work = mkdtempSync(path.join(os.tmpdir(), "sendmock-check-package-"));
const problems = [];
try {
  // --ignore-scripts: `prepare` would build again what `npm run build` has just built.
  // --dry-run=false: under `npm publish --dry-run`, prepublishOnly inherits npm_config_dry_run,
  // and a dry pack would write no tarball to check.
  const pack = spawnSync("npm", ["pack", "--ignore-scripts", "--dry-run=false", "--json", "--pack-destination", work], { cwd: ROOT, encoding: "utf8" });
  if (pack.status !== 0) throw new Error(`npm pack failed:\n${pack.stdout}\n${pack.stderr}`);
  const [report] = JSON.parse(pack.stdout.slice(pack.stdout.search(/^\[/m)));
  const tarball = path.join(work, report.filename);
  const packed = new Set(report.files.map((file) => file.path));

  for (const target of pointedAt()) if (!packed.has(target)) problems.push(`package.json points at ${target}, which is not in the tarball (not built?)`);
  // A `files` entry that names no file is silently left out by npm pack.
  for (const entry of manifest.files) {
    if (!/[*!]/.test(entry) && ![...packed].some((file) => file === entry || file.startsWith(`${entry}/`)))
      problems.push(`"files" lists ${entry}, which is not in the tarball`);
  }
  console.log(`${report.filename}: ${report.files.length} files, ${(report.size / 1024).toFixed(0)} kB packed`);

  if (run(process.execPath, [toolBin("publint", "publint"), "run", tarball, "--strict"]) !== 0) problems.push("publint reported problems (above)");
  if (run(process.execPath, [toolBin("@arethetypeswrong/cli", "attw"), tarball, "--format", "table-flipped"]) !== 0)
    problems.push("arethetypeswrong reported problems (above)");
} finally {
  rmSync(work, { recursive: true, force: true });
}

if (problems.length > 0) {
  for (const problem of problems) console.error(`check-package: ${problem}`);
  process.exit(1);
}
console.log("check-package: the tarball holds what package.json points at, and publint and arethetypeswrong found nothing");
