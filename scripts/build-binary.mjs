// `npm run build:binary`: one executable, dist/sendmock-<platform>-<arch>, that runs sendmock on a
// machine with no Node: Node's own single executable application (SEA) with the bin bundled into
// one CommonJS file and the package's files (templates, contracts, the page, the build's outputs)
// as assets. Downloads nothing: the Node that runs this script is the one copied.
// Usage: node scripts/build-binary.mjs

import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, copyFileSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire, isBuiltin } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "rolldown";
import { buildIfStale } from "./build-if-stale.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const DIST = path.join(ROOT, "dist");
/** Intermediate files: the bundle, the blob, the SEA config. Kept after the build, to look into. */
const WORK = path.join(DIST, "sea");
export const BINARY = path.join(DIST, `sendmock-${process.platform}-${process.arch}${process.platform === "win32" ? ".exe" : ""}`);
/** The fuse Node's SEA support looks for (the docs' value); the blob goes into the resource NODE_SEA_BLOB. */
const SEA_FUSE = "NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2";
/** A require bound to a file on disk, which `createRequire(import.meta.url)` becomes in the bundle (see bundleLiteralRequires). */
const DISK_REQUIRE = "requireFromDisk";
/** postject's command line (its package has no exports map to name it by). */
const POSTJECT_CLI = createRequire(import.meta.url).resolve("postject/dist/cli.js");

/** Files under `folder` (relative to ROOT, with `/`), sorted. */
function filesUnder(folder) {
  const found = [];
  for (const entry of readdirSync(path.join(ROOT, folder), { withFileTypes: true })) {
    const relative = `${folder}/${entry.name}`;
    if (entry.isDirectory()) found.push(...filesUnder(relative));
    else found.push(relative);
  }
  return found.sort();
}

/**
 * In a SEA the main script's `require` reaches built-in modules only, while a require made by
 * `createRequire(path)` reads files from disk. tsc's output has
 * `const require = createRequire(import.meta.url)` then `require("yaml")` (loaded when first used,
 * to keep it out of the start); rewritten, a call with a literal name becomes a plain
 * `require("yaml")`, which rolldown bundles and still runs only when called, and a call with a
 * computed path (the build's outputs, contract/built-ahead.ts) keeps its require from disk.
 * @param {string} code
 */
function bundleLiteralRequires(code) {
  const binding = /\bconst (\w+) = createRequire\(import\.meta\.url\);/.exec(code);
  if (binding === null) return code;
  const [declaration, name] = binding;
  return code
    .replace(declaration, `const ${DISK_REQUIRE} = createRequire(import.meta.url);`)
    .replace(new RegExp(`(?<![\\w$.])${name}\\((\\s*["'])?`, "g"), (_call, quote) => (quote === undefined ? `${DISK_REQUIRE}(` : `require(${quote}`));
}

/**
 * `import("fs")` (json-schema-ref-parser's file resolver) as a require: with the code cache, the
 * executable's main script has no callback for `import()`, which fails with
 * ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING even for a built-in module (tried on Node 20.20).
 * @param {string} code
 */
function withoutBuiltinImports(code) {
  return code.replace(/\bimport\(\s*(["'])([\w:/]+)\1\s*\)/g, (call, _quote, name) =>
    isBuiltin(name) ? `Promise.resolve().then(() => { const m = require(${JSON.stringify(name)}); return { ...m, default: m }; })` : call,
  );
}

/**
 * Rolldown's build, failing on anything it could not resolve and on any import left outside the
 * bundle that is not a built-in module: in the executable there is no node_modules to find it in.
 * @param {import("rolldown").InputOptions & { output: import("rolldown").OutputOptions }} options
 */
async function bundleAlone(options) {
  const problems = [];
  const { output } = await build({
    platform: "node",
    logLevel: "warn",
    onLog(level, log, handler) {
      if (log.code === "UNRESOLVED_IMPORT" || log.code === "MISSING_EXPORT") problems.push(log.message);
      else handler(level, log);
    },
    ...options,
    output: { format: "cjs", codeSplitting: false, ...options.output },
  });
  for (const chunk of output) {
    if (chunk.type !== "chunk") continue;
    const outside = chunk.imports.filter((id) => !isBuiltin(id));
    if (outside.length > 0) problems.push(`${chunk.fileName} requires ${outside.join(", ")}, which the executable cannot load`);
    // An inlined dynamic import names the chunk itself; any other cannot run (withoutBuiltinImports).
    const imported = chunk.dynamicImports.filter((id) => id !== chunk.fileName);
    if (imported.length > 0) problems.push(`${chunk.fileName} keeps import() of ${imported.join(", ")}, which the executable cannot run`);
  }
  if (problems.length > 0) throw new Error(`bundling for the executable failed:\n${problems.join("\n")}`);
}

/** The bin and every dependency it loads, one CommonJS file with lazy imports inlined. */
async function bundleBin() {
  await bundleAlone({
    input: path.join(DIST, "cli.js"),
    plugins: [
      {
        name: "sendmock-single-executable",
        transform(code, id) {
          if (!id.startsWith(DIST + path.sep)) return withoutBuiltinImports(code);
          return withoutBuiltinImports(bundleLiteralRequires(code));
        },
      },
    ],
    output: { file: path.join(WORK, "sendmock.cjs") },
  });
}

/**
 * The build's precompiled checks (ajv's standalone code) require ajv's runtime helpers by name
 * from node_modules; the executable has none, so each is shipped bundled with its helpers
 * (ajv-formats' formats among them: 16 to 104 KB more each), keeping its exports and its place
 * in dist/.
 */
async function bundlePrecompiled(names) {
  for (const name of names) {
    await bundleAlone({ input: path.join(DIST, name), output: { file: path.join(WORK, "package", "dist", name) } });
  }
}

/**
 * Every file src/package-root.ts points to, each a path relative to the package root and the file
 * to embed for it.
 */
function packageFiles(precompiled) {
  const files = new Map();
  const add = (relative, source = path.join(ROOT, relative)) => files.set(relative, source);
  add("package.json");
  for (const file of [...filesUnder("openapi"), ...filesUnder("fixtures/templates"), ...filesUnder("src/ui")]) add(file);
  for (const name of readdirSync(DIST).filter((file) => file.endsWith(".json"))) add(`dist/${name}`);
  for (const name of precompiled) add(`dist/${name}`, path.join(WORK, "package", "dist", name));
  return files;
}

/** The asset list and its manifest (src/embedded-package.ts reads it), named by a digest of every path and byte. */
function writeAssets(files) {
  const digest = createHash("sha256");
  const assets = {};
  for (const [relative, source] of [...files].sort(([a], [b]) => (a < b ? -1 : 1))) {
    digest.update(`${relative}\0`).update(readFileSync(source)).update("\0");
    assets[`sendmock/${relative}`] = source;
  }
  const manifest = path.join(WORK, "manifest.json");
  writeFileSync(manifest, JSON.stringify({ digest: digest.digest("hex").slice(0, 24), files: [...files.keys()].sort() }));
  assets["sendmock/manifest.json"] = manifest;
  return assets;
}

/** The blob: Node reads the config, compiles the bundle's code cache and packs bundle and assets. */
function writeBlob(assets) {
  const config = path.join(WORK, "sea-config.json");
  const blob = path.join(WORK, "sea-prep.blob");
  writeFileSync(
    config,
    JSON.stringify(
      {
        main: path.join(WORK, "sendmock.cjs"),
        output: blob,
        disableExperimentalSEAWarning: true,
        // V8's compiled code for the bundle, made here and loaded at each start instead of
        // compiling 3.5 MB of JavaScript. Spawn -> first 200 on POST /send, 11 interleaved starts
        // each on a busy 2-core machine: 170 ms median with it, 207 ms without, against 184 ms for
        // `node dist/bin/sendmock.js serve`. It costs import() in the main script (see
        // withoutBuiltinImports) and ties the blob to this Node, which is the one copied anyway.
        useCodeCache: true,
        assets,
      },
      null,
      2,
    ),
  );
  run(process.execPath, ["--experimental-sea-config", config]);
  return blob;
}

/** Runs a build tool quietly, showing what it said only when it fails. */
function run(command, args) {
  try {
    execFileSync(command, args, { cwd: WORK, stdio: "pipe" });
  } catch (error) {
    throw new Error(`${path.basename(command)} ${args.join(" ")} failed:\n${String(error.stdout)}${String(error.stderr)}`, { cause: error });
  }
}

/**
 * A copy of this Node with the blob injected, renamed into place once whole. postject runs as a
 * child process: its ELF library writes a warning per note section to stderr ("Can't find string
 * offset for section name '.note.100'", harmless), which only a failed injection should show.
 */
function writeExecutable(blob) {
  const partial = `${BINARY}.partial`;
  copyFileSync(process.execPath, partial);
  chmodSync(partial, 0o755);
  const macOS = process.platform === "darwin";
  if (macOS) run("codesign", ["--remove-signature", partial]);
  run(process.execPath, [POSTJECT_CLI, partial, "NODE_SEA_BLOB", blob, "--sentinel-fuse", SEA_FUSE, ...(macOS ? ["--macho-segment-name", "NODE_SEA"] : [])]);
  if (macOS) run("codesign", ["--sign", "-", partial]);
  renameSync(partial, BINARY);
}

/** Builds dist/ if its sources changed, then the executable. */
export async function buildBinary() {
  const began = performance.now();
  buildIfStale();
  rmSync(WORK, { recursive: true, force: true });
  mkdirSync(WORK, { recursive: true });
  await bundleBin();
  const precompiled = readdirSync(DIST).filter((file) => /^precompiled-.*\.cjs$/.test(file));
  await bundlePrecompiled(precompiled);
  const blob = writeBlob(writeAssets(packageFiles(precompiled)));
  writeExecutable(blob);
  const mb = (statSync(BINARY).size / 2 ** 20).toFixed(1);
  process.stdout.write(`${path.relative(ROOT, BINARY)}: ${mb} MB, built in ${((performance.now() - began) / 1000).toFixed(1)} s\n`);
}

/**
 * For `npm run build:image`: the executable is built again only when something it is made of is
 * newer than it (dist/ as of its last build, the dependencies, the package's files, this script,
 * the Node copied), which spares CI a second build right after `npm run build:binary`.
 */
export async function buildBinaryIfStale() {
  buildIfStale();
  const mtime = (file) => statSync(file).mtimeMs;
  let built;
  try {
    built = mtime(BINARY);
  } catch {
    return buildBinary();
  }
  const inputs = [
    path.join(DIST, "checked-contracts.json"),
    ...["package.json", "package-lock.json", "scripts/build-binary.mjs"].map((file) => path.join(ROOT, file)),
    ...["openapi", "fixtures/templates", "src/ui"].flatMap((folder) => filesUnder(folder).map((file) => path.join(ROOT, file))),
    process.execPath,
  ];
  if (inputs.some((input) => mtime(input) > built)) return buildBinary();
  process.stdout.write(`${path.relative(ROOT, BINARY)} is up to date\n`);
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await buildBinary();
