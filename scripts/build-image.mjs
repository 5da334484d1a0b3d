// `npm run build:image`: the OCI image sendmock:<version> from the Containerfile, with podman,
// buildah or docker, whichever is installed and works (in that order, or SENDMOCK_IMAGE_TOOL).
// The image is FROM scratch: this script stages what goes in (dist/image/root/, see the
// Containerfile), so the build pulls nothing and needs no network. The storage driver is the
// tool's own setting (CI sets STORAGE_DRIVER=vfs, which podman and buildah read).
// Usage: node scripts/build-image.mjs

import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, cpSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { BINARY, buildBinaryIfStale } from "./build-binary.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
/** The build context: the Containerfile copies its root/ to /. */
const CONTEXT = path.join(ROOT, "dist", "image");
const STAGE = path.join(CONTEXT, "root");
const PACKAGE = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8"));
export const IMAGE = `sendmock:${PACKAGE.version}`;
/** The user the image runs as: not root, and no user of the host's by accident. */
const UID = 10001;
const TOOLS = ["podman", "buildah", "docker"];

/**
 * `tool` with the storage driver STORAGE_DRIVER names (CI sets vfs: no overlay needed), given as a
 * flag: podman reads the variable itself, but buildah 1.28 kept its overlay default with it set.
 * Unset, each tool keeps its own configuration.
 * @returns {[string, ...string[]]}
 */
export function toolCommand(tool) {
  const driver = process.env.STORAGE_DRIVER;
  return driver && tool !== "docker" ? [tool, "--storage-driver", driver] : [tool];
}

/** Runs `tool args`, its output returned, what it said shown when it fails. */
export function runTool(tool, args) {
  const [command, ...flags] = toolCommand(tool);
  const result = spawnSync(command, [...flags, ...args], { encoding: "utf8", maxBuffer: 64 * 2 ** 20 });
  if (result.status !== 0) throw new Error(`sendmock: ${[command, ...flags, ...args].join(" ")} failed:\n${result.stdout}${result.stderr}`);
  return result.stdout;
}

/** The first tool that answers `info` (docker's client alone fails there: it needs its daemon). */
export function containerTool() {
  const wanted = process.env.SENDMOCK_IMAGE_TOOL;
  for (const tool of wanted ? [wanted] : TOOLS) {
    const [command, ...flags] = toolCommand(tool);
    if (spawnSync(command, [...flags, "info"], { stdio: "ignore", timeout: 60_000 }).status === 0) return tool;
  }
  throw new Error(
    `sendmock: no working container tool: tried ${wanted ?? TOOLS.join(", ")} (\`<tool> info\` failed or it is not installed); apt-get install podman`,
  );
}

/** The shared libraries `ldd` says the executable loads, the dynamic loader among them (linux-vdso is the kernel's). */
function sharedLibraries(executable) {
  const listed = execFileSync("ldd", [executable], { encoding: "utf8" });
  const libraries = [];
  for (const line of listed.split("\n")) {
    const match = /(?:=>\s*)?(\/\S+)\s+\(0x[0-9a-f]+\)/.exec(line);
    if (match?.[1]) libraries.push(match[1]);
    else if (/not found/.test(line)) throw new Error(`sendmock: ldd ${executable}: ${line.trim()}`);
  }
  return libraries;
}

/** Makes every folder under `folder` 755 and every file 644 (755 if executable): readable by the image's user, writable by none. */
function readableByAll(folder) {
  chmodSync(folder, 0o755);
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const entryPath = path.join(folder, entry.name);
    if (entry.isDirectory()) readableByAll(entryPath);
    else chmodSync(entryPath, statSync(entryPath).mode & 0o111 ? 0o755 : 0o644);
  }
}

/** dist/image/root/: everything the image holds. */
function stage() {
  rmSync(CONTEXT, { recursive: true, force: true });
  mkdirSync(STAGE, { recursive: true });
  copyFileSync(BINARY, path.join(STAGE, "sendmock"));
  chmodSync(path.join(STAGE, "sendmock"), 0o755);
  // Each at the path the executable names it by (the loader's path is written in the ELF file),
  // as a file, not the host's symlink.
  for (const library of sharedLibraries(BINARY)) {
    const target = path.join(STAGE, library);
    mkdirSync(path.dirname(target), { recursive: true });
    copyFileSync(realpathSync(library), target);
    chmodSync(target, 0o755);
  }
  const etc = path.join(STAGE, "etc");
  mkdirSync(etc);
  writeFileSync(path.join(etc, "passwd"), `root:x:0:0:root:/root:/sbin/nologin\nsendmock:x:${UID}:${UID}:sendmock:/tmp:/sbin/nologin\n`);
  writeFileSync(path.join(etc, "group"), `root:x:0:\nsendmock:x:${UID}:\n`);
  // Without it glibc asks DNS before /etc/hosts, so `localhost` would wait on a resolver.
  writeFileSync(path.join(etc, "nsswitch.conf"), "passwd: files\ngroup: files\nhosts: files dns\n");
  mkdirSync(path.join(STAGE, "tmp"));
  chmodSync(path.join(STAGE, "tmp"), 0o1777);
  cpSync(path.join(ROOT, "fixtures", "templates"), path.join(STAGE, "templates"), { recursive: true });
  // The package's files as the executable writes them out at its first start (XDG_CACHE_HOME is
  // /var/cache in the image): there already, a start only finds them.
  const cache = path.join(STAGE, "var", "cache");
  mkdirSync(cache, { recursive: true });
  execFileSync(BINARY, ["--version"], { env: { XDG_CACHE_HOME: cache, PATH: "" }, stdio: "ignore" });
  readableByAll(path.join(STAGE, "templates"));
  readableByAll(path.join(STAGE, "var"));
}

/** Bytes of the files under `folder`. */
function sizeOf(folder) {
  let bytes = 0;
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const entryPath = path.join(folder, entry.name);
    bytes += entry.isDirectory() ? sizeOf(entryPath) : statSync(entryPath).size;
  }
  return bytes;
}

/** The image's id, or undefined when there is none by that name. */
function imageId(tool) {
  try {
    return runTool(
      tool,
      tool === "buildah" ? ["inspect", "--type", "image", "--format", "{{.FromImageID}}", IMAGE] : ["image", "inspect", "--format", "{{.Id}}", IMAGE],
    ).trim();
  } catch {
    return undefined;
  }
}

async function buildImage() {
  const began = performance.now();
  if (process.platform !== "linux") throw new Error("sendmock: the image holds a Linux executable; build it on Linux");
  const tool = containerTool();
  const source = typeof PACKAGE.repository === "string" ? PACKAGE.repository : (PACKAGE.repository?.url ?? PACKAGE.homepage ?? "");
  await buildBinaryIfStale();
  stage();
  const previous = imageId(tool);
  const args = [
    "build",
    "--network",
    "none",
    "-f",
    path.join(ROOT, "Containerfile"),
    "-t",
    IMAGE,
    "--build-arg",
    `VERSION=${PACKAGE.version}`,
    "--build-arg",
    `SOURCE=${source}`,
  ];
  // One layer, committed once: with the vfs driver every layer is a full copy of the one before.
  if (tool !== "docker") args.push("--layers=false");
  // Its progress lines are no news; what it said is shown when it fails.
  runTool(tool, [...args, CONTEXT]);
  // The image this one replaces, left untagged, would keep its ~100 MB in the store.
  const built = imageId(tool);
  if (previous !== undefined && previous !== built) {
    try {
      runTool(tool, ["rmi", previous]);
    } catch {
      // Still used by a container: it stays.
    }
  }
  const reported = runTool(tool, ["images", "--format", "{{.Size}}", IMAGE]).trim();
  const mb = (bytes) => `${(bytes / 2 ** 20).toFixed(1)} MB`;
  process.stdout.write(
    `${IMAGE} built with ${tool} in ${((performance.now() - began) / 1000).toFixed(1)} s: ${reported || "size not reported"} ` +
      `(${mb(sizeOf(STAGE))} of files: the executable ${mb(statSync(BINARY).size)})\n`,
  );
  if (source === "") process.stdout.write("note: package.json names no repository, so the label org.opencontainers.image.source is empty\n");
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await buildImage();
