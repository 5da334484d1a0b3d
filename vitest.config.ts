// The test suite in three tiers (vitest projects): unit, http and e2e; only e2e builds dist/.

import { availableParallelism } from "node:os";
import { configDefaults, defineConfig } from "vitest/config";
import { HttpTierFirst } from "./test/support/tier-order.js";

// Tiers are chosen by folder, so a new test file lands in the tier of the folder it is put in.
// Anything not claimed by unit or http (test/e2e/, a new top-level file or folder) runs in e2e.

/** Plain TypeScript: no socket, no build, no child process. */
const UNIT = ["test/unit/**/*.test.ts", "test/stores/**/*.test.ts"];
/** The store contracts against a real Redis belong to e2e, whatever folder they sit in. */
const REDIS = ["test/**/redis*.test.ts", "test/e2e/redis/**/*.test.ts"];
/** The app in this process, through supertest or on a socket of its own; no build, no child process. */
const HTTP = ["test/http/**/*.test.ts"];

export default defineConfig({
  test: {
    testTimeout: 15_000,
    // One worker per core, not vitest's cores - 1: most e2e tests wait on child processes,
    // sockets and timers, and on a 2-core machine the default would run every file in turn.
    maxWorkers: availableParallelism(),
    sequence: { sequencer: HttpTierFirst },
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: UNIT,
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
          exclude: [...configDefaults.exclude, ...REDIS],
          // Express and the OpenAPI validator are loaded once per worker instead of once per file.
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: "e2e",
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
