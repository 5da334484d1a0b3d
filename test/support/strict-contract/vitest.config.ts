// Runs broken-request.vitest.ts on its own, for test/e2e/testing-helpers.test.ts, apart from sendmock's suite.
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    root: fileURLToPath(new URL(".", import.meta.url)),
    include: ["*.vitest.ts"],
  },
});
