// Runs the Playwright example of docs/sandboxes.md, written by test/e2e/sandboxes-in-parallel.test.ts into test-results/playwright-example/.
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    root: fileURLToPath(new URL("../../../test-results/playwright-example/", import.meta.url)),
    include: ["*.test.ts"],
    testTimeout: 30_000,
  },
});
