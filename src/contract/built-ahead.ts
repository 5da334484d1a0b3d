// Where `npm run build` writes what it prepared ahead (ajv standalone code, checked contracts,
// parsed templates), and how a mock finds one: by file and key (a digest), from dist/ whether the
// code runs from dist/ or from src/.

import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);

/** The file in the build's output folder: dist/ beside this module's folder once built. */
export const builtFile = (name: string): string => fileURLToPath(new URL(`../${name}`, import.meta.url));

/**
 * What the build wrote sits next to the compiled modules (dist/); run from src/ (the tests), the
 * same build's dist/ is used. Everything is keyed by the digest of what it was made from, so a
 * build older than the sources never answers for them: their digest is not there.
 */
const builtCandidates = (name: string): string[] => [builtFile(name), fileURLToPath(new URL(`../../dist/${name}`, import.meta.url))];

/**
 * What the build wrote under `key` in `file` (a module or a JSON file, read once per process by
 * require), or undefined: not built, or built from something else.
 */
export function builtAhead(file: string, key: string): unknown {
  for (const candidate of builtCandidates(file)) {
    let built: Record<string, unknown>;
    try {
      built = require(candidate) as typeof built;
    } catch {
      // Not built there.
      continue;
    }
    if (Object.hasOwn(built, key)) return built[key];
  }
  return undefined;
}
