// The proof's three vitest files in one worker, one sendmock for the run from the package's global setup, as a user's config names it.
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    root: fileURLToPath(new URL(".", import.meta.url)),
    include: ["*.vitest.ts"],
    globalSetup: ["sendmock/vitest/global-setup"],
    maxWorkers: 1,
    fileParallelism: false,
    // The three files share one worker's process and modules too: the closest a run comes to files sharing state.
    pool: "threads",
    isolate: false,
    // sendmock resolves to this repository's dist/ (the package's own exports), which vitest would transform as a
    // source: loaded by Node, as vitest loads node_modules in a user's project.
    server: { deps: { external: [/\/dist\/lib\//] } },
  },
});
