// Where the package's own files are (openapi/, fixtures/, src/ui/, dist/, package.json), from
// any module: run from src/, from dist/, from the bin's bundle in dist/bin/, or from inside the
// single executable (npm run build:binary), which carries them as assets. This is the one place
// that tells the two apart.

import { existsSync } from "node:fs";
import path from "node:path";
import { isSea } from "node:sea";
import { fileURLToPath } from "node:url";
import { extractEmbeddedPackage } from "./embedded-package.js";

/**
 * The nearest folder at or above this module that holds a package.json. A path relative to
 * `import.meta.url` would name another folder once this module is bundled into dist/bin/
 * (one level deeper than dist/), so the root is found rather than counted.
 */
function findPackageRoot(): string {
  const start = path.dirname(fileURLToPath(import.meta.url));
  for (let folder = start; ; folder = path.dirname(folder)) {
    if (existsSync(path.join(folder, "package.json"))) return folder;
    if (path.dirname(folder) === folder) throw new Error(`sendmock: no package.json at or above ${start}; the package is incomplete`);
  }
}

// Inside the executable, `import.meta.url` names the executable itself, and the files are
// written out of it to a cache folder (embedded-package.ts says why).
const PACKAGE_ROOT = isSea() ? extractEmbeddedPackage() : findPackageRoot();

/** A path inside the package, e.g. `packagePath("openapi", "send.yaml")`. */
export const packagePath = (...segments: string[]): string => path.join(PACKAGE_ROOT, ...segments);

/** The templates a mock serves when given no folder of its own. */
export const SHIPPED_TEMPLATES = packagePath("fixtures", "templates");
