// The test suite in three tiers (vitest projects): unit, http and e2e; only e2e builds dist/.

import { availableParallelism } from "node:os";
import { configDefaults, defineConfig } from "vitest/config";
import { LongestFirst } from "./test/support/tier-order.js";

// Tiers are chosen by folder, so a new test file lands in the tier of the folder it is put in.
// Anything not claimed by unit or http (test/e2e/, a new top-level file or folder) runs in e2e.

/** Plain TypeScript: no socket, no build, no child process. */
const UNIT = ["test/unit/**/*.test.ts", "test/stores/**/*.test.ts"];
/** The store contracts against a real Redis belong to e2e, whatever folder they sit in. */
const REDIS = ["test/**/redis*.test.ts", "test/e2e/redis/**/*.test.ts"];
/** The app in this process, through supertest or on a socket of its own; no build, no child process. */
const HTTP = ["test/http/**/*.test.ts"];

/**
 * vitest runs one group of tiers after another, by group order (which also lets a group have a
 * worker count of its own). http goes first: by name, e2e came first and left http's longest file
 * for last with the other core idle. unit runs beside http, after its files: unit's short files
 * fill the workers http's waiting tests leave idle, instead of taking ~2.5 s after e2e (in one
 * group, vitest requires one worker count).
 */
const TIER_ORDER = { http: 0, unit: 0, e2e: 1 };
/** A worker more than cores: half the http tier's time is tests waiting (Retry-After, fault delays, a deliberately slow server). Measured on the tier alone, 2 runs each: 12.8-13.9 s against 14.6-15.7 s with 2 workers. */
const FIRST_GROUP_WORKERS = availableParallelism() + 1;

export default defineConfig({
  test: {
    testTimeout: 15_000,
    // One worker per core, not vitest's cores - 1: most e2e tests wait on child processes,
    // sockets and timers, and on a 2-core machine the default would run every file in turn.
    maxWorkers: availableParallelism(),
    sequence: { sequencer: LongestFirst },
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: UNIT,
          sequence: { groupOrder: TIER_ORDER.unit },
          maxWorkers: FIRST_GROUP_WORKERS,
          exclude: [...configDefaults.exclude, ...REDIS],
          // The sources keep no module-level state, so the files of one worker share one module graph.
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: "http",
          include: HTTP,
          sequence: { groupOrder: TIER_ORDER.http },
          maxWorkers: FIRST_GROUP_WORKERS,
          exclude: [...configDefaults.exclude, ...REDIS],
          // Express and the OpenAPI validator are loaded once per worker instead of once per file.
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: "types",
          // Type-level tests (src/wire.ts against the documents' generated types): tsc over these
          // files and what they import, each failing assertion a failing test.
          sequence: { groupOrder: TIER_ORDER.unit },
          typecheck: { enabled: true, only: true, include: ["test/types/**/*.test-d.ts"], tsconfig: "test/types/tsconfig.json" },
        },
      },
      {
        extends: true,
        test: {
          name: "e2e",
          // Not more workers here: with 3, two runs of the suite took 81.6 and 90.0 s against 89.8
          // and 87.2 s with 2, and each worker loads the sources again (up to 18 core-s more).
          sequence: { groupOrder: TIER_ORDER.e2e },
          include: ["test/**/*.test.ts"],
          // Everything unit and http do not claim, and the Redis tests they leave out.
          exclude: [...configDefaults.exclude, ...UNIT.map(notRedis), ...HTTP.map(notRedis)],
          // The CLI, the package, proxy, check and lifecycle tests start the real dist/ bin.
          globalSetup: ["test/support/global-setup.ts"],
          // As in http: a worker loads the sources once for all its files (6 s of CPU over the tier).
          isolate: false,
        },
      },
    ],
  },
});

/** `folder/**\/*.test.ts` -> the same files except the Redis ones (picomatch extglob). */
function notRedis(glob: string): string {
  return glob.replace(/\*\.test\.ts$/, "!(redis*).test.ts");
}
