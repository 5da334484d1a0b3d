// The order vitest hands a tier's test files to its workers: the longest first, by the
// durations below, so a fresh clone packs as well as a warm one. The tiers' own order is their
// `sequence.groupOrder` in vitest.config.ts.

import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * The files that take 4 s or more, longest first, as timed in a full run on 2 cores (seconds in
 * the comments). vitest orders a tier by the durations it cached from the last run, and on a fresh
 * clone, which has none, by file size: there the npm-start and load files (small, 8-10 s) started
 * among the last, and the suite ended with one worker on them while the other had nothing left.
 * A file missing here keeps vitest's order after these; one that grows past 4 s belongs in the list.
 */
const LONGEST_FIRST = [
  "test/http/check-generative-defects.test.ts", // 8, half of it waiting on a slow server
  "test/http/faults-ways-in.test.ts", // most of the 6.6 s faults.test.ts took before it was split: its latency and timeout waits
  "test/http/webhooks-hardened.test.ts", // 5.5, most of it 2,000 sends
  "test/http/check-generative.test.ts", // 4.7
  "test/e2e/docs-blocks.test.ts", // 19 in a full run on a busy host (115 s; the others' figures are from ~80 s runs): every code block of the docs, half of it child processes and waits
  "test/e2e/package.test.ts", // 11 alone (15 when it installed twice): packs, installs into one project and links that install, runs jest, vitest and tsc there
  "test/e2e/five-services.test.ts", // 4.4 alone, most of it its beforeAll: seven check runs against Python services side by side, one paced at 5/s
  "test/e2e/npm-start.test.ts", // 7-7.7 alone (10.3 before its other tests ran beside the build), 16 in CI on a busy host: one full build
  "test/e2e/per-file-sandboxes.test.ts", // 4.6 alone (6.5 before the two frameworks ran side by side): 2 x 11 runs of vitest and jest, each framework's in one child process
  "test/e2e/cli-log.test.ts", // 8
  "test/e2e/robustness/lifecycle.test.ts", // 8 (11 when its two close-under-load tests each ran a load)
  "test/e2e/browser/inbox.test.ts", // 7.5
  "test/e2e/robustness/load.test.ts", // 7.5
  "test/e2e/cli.test.ts", // 7
  "test/e2e/browser/inbox-message-tools-settings-and-layout.test.ts", // 9.7 in that busy run
  "test/e2e/robustness/fuzz-bytes-and-headers.test.ts", // 8.1 in that busy run
  "test/e2e/redis/replica-processes.test.ts", // 5 timed alone: replicas in child processes, killed and waited for
  "test/e2e/robustness/fuzz-near-valid.test.ts", // 6.6 in that busy run
  "test/e2e/robustness/fuzz-json.test.ts", // 6.5 in that busy run
  "test/e2e/browser/inbox-message-tools-messages.test.ts", // 5.9 in that busy run
  "test/e2e/check.test.ts", // 4.3
];

/** vitest's own order (tiers by group order, then its cache or file size), with LONGEST_FIRST ahead within each tier. */
export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification): number => {
      const index = LONGEST_FIRST.findIndex((known) => file.moduleId.endsWith(`/${known}`));
      return index === -1 ? LONGEST_FIRST.length : index;
    };
    const groupOrder = (file: TestSpecification): number => file.project.config.sequence.groupOrder;
    // Array.prototype.sort is stable: the order vitest chose holds among the files not listed.
    return (await super.sort(files)).sort((a, b) => groupOrder(a) - groupOrder(b) || rank(a) - rank(b));
  }
}
