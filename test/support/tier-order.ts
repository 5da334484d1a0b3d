// The order vitest hands test files to its workers: the http tier first, then e2e, then unit;
// within a tier the longest files first, by the durations below, so a fresh clone packs as well.

import { BaseSequencer, type TestSpecification } from "vitest/node";

/** vitest runs the tiers in the order of their names (e2e, http, unit): the long http files came last. */
const TIER_ORDER = ["http", "e2e", "unit"];

/**
 * The files that take 5 s or more, longest first, as timed in a full run on 2 cores (seconds in
 * the comments). vitest orders a tier by the durations it cached from the last run, and on a fresh
 * clone, which has none, by file size: there the npm-start and load files (small, 9-10 s and 8 s)
 * started among the last, and the suite ended with one worker on them while the other had
 * nothing left. A file missing here keeps vitest's order after these; one that grows past 5 s
 * belongs in the list.
 */
const LONGEST_FIRST = [
  "test/http/check-generative-defects.test.ts", // 6, half of it waiting on a slow server
  "test/http/faults.test.ts", // 5.5
  "test/e2e/robustness/fuzz.test.ts", // 34
  "test/e2e/browser/inbox-message-tools.test.ts", // 14.5
  "test/e2e/robustness/lifecycle.test.ts", // 10
  "test/e2e/npm-start.test.ts", // 9.5
  "test/e2e/browser/inbox.test.ts", // 9.5
  "test/e2e/robustness/load.test.ts", // 8
  "test/e2e/package.test.ts", // 7
  "test/e2e/cli-log.test.ts", // 6
  "test/e2e/robustness/slowloris.test.ts", // 5.3
  "test/e2e/cli.test.ts", // 5
];

/**
 * vitest's own order within each tier, with the tiers in TIER_ORDER and the files of
 * LONGEST_FIRST ahead of the rest of their tier. Started after every e2e file, http's
 * `check --generate` files were the last running on a fresh clone, with the other core idle
 * for their last 3 s.
 */
export class HttpTierFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const tier = (file: TestSpecification): number => {
      const index = TIER_ORDER.indexOf(file.project.name);
      return index === -1 ? TIER_ORDER.length : index;
    };
    const length = (file: TestSpecification): number => {
      const index = LONGEST_FIRST.findIndex((known) => file.moduleId.endsWith(`/${known}`));
      return index === -1 ? LONGEST_FIRST.length : index;
    };
    // Array.prototype.sort is stable: the order vitest chose holds among the files not listed.
    return (await super.sort(files)).sort((a, b) => tier(a) - tier(b) || length(a) - length(b));
  }
}
