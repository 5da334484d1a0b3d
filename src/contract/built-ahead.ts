// Where `npm run build` writes what it prepared ahead (ajv standalone code, checked contracts,
// parsed templates), and how a mock finds one: by file and key (a digest).

import { createRequire } from "node:module";
import { packagePath } from "../package-root.js";

const require = createRequire(import.meta.url);

/**
 * The file in the build's output folder, dist/, whether the code runs from dist/, from the bin's
 * bundle or from src/ (the tests). Everything there is keyed by the digest of what it was made
 * from, so a build older than the sources never stands in for them: their digest is not there.
 */
export const builtFile = (name: string): string => packagePath("dist", name);

/**
 * What the build wrote under `key` in `file` (a module or a JSON file, read once per process by
 * require), or undefined: not built, or built from something else.
 */
export function builtAhead(file: string, key: string): unknown {
  let built: Record<string, unknown>;
  try {
    built = require(builtFile(file)) as typeof built;
  } catch {
    // Not built.
    return undefined;
  }
  return Object.hasOwn(built, key) ? built[key] : undefined;
}
