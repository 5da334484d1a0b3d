// Where `npm run build` writes the checks it generated (ajv standalone code), and how a mock finds
// one: by file and key (a digest), from dist/ whether the code runs from dist/ or from src/.

import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import type { ValidateFunction } from "ajv";

const require = createRequire(import.meta.url);

/** The file in the build's output folder: dist/ beside this module's folder once built. */
export const builtFile = (name: string): string => fileURLToPath(new URL(`../${name}`, import.meta.url));

/**
 * Built code sits next to the compiled modules (dist/); run from src/ (the tests), the same
 * build's dist/ is used. A check is keyed by the digest of what it was compiled from, so a build
 * older than the sources never answers for them: their digest is not there.
 */
export const builtCandidates = (name: string): string[] => [builtFile(name), fileURLToPath(new URL(`../../dist/${name}`, import.meta.url))];

/** The check built ahead under `key` in `file`, or undefined (not built, or built from something else). */
export function builtAhead(file: string, key: string): ValidateFunction | undefined {
  for (const candidate of builtCandidates(file)) {
    let checks: Record<string, ValidateFunction | undefined>;
    try {
      checks = require(candidate) as typeof checks;
    } catch {
      // Not built there.
      continue;
    }
    const check = checks[key];
    if (check !== undefined) return check;
  }
  return undefined;
}
