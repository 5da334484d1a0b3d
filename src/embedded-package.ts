// The package's own files inside the single executable (npm run build:binary): written out once
// from the executable's assets to a cache folder named by their digest, then read from there
// exactly as the npm package's are.
//
// Why a folder rather than reading the assets where they are: the code reads these files with
// readFile and readdir, serves the page with express.static, watches the templates folder for
// changes and loads the precompiled checks with require; all of those want a real path. Measured
// on a 2-core machine, `--version`, 31 starts each: a first start, which writes the 39 files
// (1.2 MB), took 71 ms median, a later one, which finds them (a stat each, 0.2 ms), 59 ms, as long
// as `node -e 0` (60 ms).

import { randomBytes } from "node:crypto";
import { existsSync, lstatSync, mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { getAsset } from "node:sea";

/** The asset scripts/build-binary.mjs writes beside the files: their paths (keys `sendmock/<path>`) and their digest. */
const MANIFEST_ASSET = "sendmock/manifest.json";

interface Manifest {
  /** Of every file's path and bytes: a folder of that name holds those files and no other version of them. */
  digest: string;
  /** Paths relative to the package root, with `/`. */
  files: string[];
}

/**
 * Where the files may go, best first: the user's cache folder, else a folder of this user's own
 * under the system's temporary folder (a read-only home, or none, as in a container).
 */
function cacheFolders(): { folder: string; ownedByUser: boolean }[] {
  const folders: { folder: string; ownedByUser: boolean }[] = [];
  const xdg = process.env.XDG_CACHE_HOME;
  let home = "";
  try {
    home = os.homedir();
  } catch {
    // No home: a user without a passwd entry and no HOME.
  }
  if (xdg !== undefined && path.isAbsolute(xdg)) folders.push({ folder: path.join(xdg, "sendmock"), ownedByUser: false });
  else if (home !== "") folders.push({ folder: path.join(home, ".cache", "sendmock"), ownedByUser: false });
  // Shared with every user of the machine: only a folder this user made and alone can write to
  // is trusted, so nobody else can put templates or a page in its place.
  folders.push({ folder: path.join(os.tmpdir(), `sendmock-${String(process.getuid?.() ?? "user")}`), ownedByUser: true });
  return folders;
}

/** Refuses a shared-temp folder that someone else made or can write to. */
function checkOwnFolder(folder: string): void {
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  const stat = lstatSync(folder);
  const uid = process.getuid?.();
  if (!stat.isDirectory() || (uid !== undefined && stat.uid !== uid) || (stat.mode & 0o022) !== 0) {
    throw new Error(`${folder} is not a folder of this user's that only it can write to`);
  }
}

/**
 * Writes each of the files not yet in `folder`. Each goes to a name of this process's own and is
 * renamed into place, so a file that is there is whole: two processes starting at once both
 * write, and the second rename puts the same bytes where the first did. A later start writes
 * nothing, and a file a cleaner removed is written again.
 */
function writeMissingFiles(folder: string, files: readonly string[]): void {
  for (const file of files) {
    const target = path.join(folder, ...file.split("/"));
    if (existsSync(target)) continue;
    mkdirSync(path.dirname(target), { recursive: true });
    const partial = `${target}.${String(process.pid)}-${randomBytes(4).toString("hex")}.partial`;
    try {
      writeFileSync(partial, new Uint8Array(getAsset(`sendmock/${file}`)));
      renameSync(partial, target);
    } finally {
      rmSync(partial, { force: true });
    }
  }
}

/**
 * The folder holding the package's files, written there from the executable if need be. When no
 * folder can be written, the process ends with one line saying so: this runs as the executable's
 * first step, before the command line is read, and the executable is only ever the command line.
 */
export function extractEmbeddedPackage(): string {
  const manifest = JSON.parse(getAsset(MANIFEST_ASSET, "utf8")) as Manifest;
  const failures: string[] = [];
  for (const { folder, ownedByUser } of cacheFolders()) {
    const root = path.join(folder, manifest.digest);
    try {
      if (ownedByUser) checkOwnFolder(folder);
      writeMissingFiles(root, manifest.files);
      return root;
    } catch (error) {
      failures.push(error instanceof Error ? error.message : String(error));
    }
  }
  process.stderr.write(
    `sendmock: cannot write the executable's own files (templates, contracts, the inbox page) to a cache folder; set XDG_CACHE_HOME to a writable folder (${failures.join("; ")})\n`,
  );
  process.exit(1);
}
