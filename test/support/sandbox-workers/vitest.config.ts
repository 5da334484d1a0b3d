// Runs the two worker files side by side, each in a vitest worker of its own, against one sendmock (SENDMOCK_URL), for test/e2e/sandboxes-in-parallel.test.ts.
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    root: fileURLToPath(new URL(".", import.meta.url)),
    include: ["*.vitest.ts"],
    pool: "forks",
    maxWorkers: 2,
    fileParallelism: true,
    testTimeout: 50_000,
  },
});
