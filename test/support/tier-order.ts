// The order vitest hands test files to its workers: the http tier first, then e2e, then unit.

import { BaseSequencer, type TestSpecification } from "vitest/node";

/** vitest runs the tiers in the order of their names (e2e, http, unit): the long http files came last. */
const TIER_ORDER = ["http", "e2e", "unit"];

/**
 * vitest's own order within each tier (the longest first once it has timed a run; on a fresh
 * clone, the largest files first), with the http tier moved ahead of e2e. Started after every
 * e2e file, http's `check --generate` file (~11 s, half of it waiting on a slow server) was the
 * last file running on a fresh clone, with the other core idle for its last 3 s.
 */
export class HttpTierFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification): number => {
      const index = TIER_ORDER.indexOf(file.project.name);
      return index === -1 ? TIER_ORDER.length : index;
    };
    // Array.prototype.sort is stable: the order vitest chose holds within each tier.
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}
