// Runs the README's vitest example on its own (test/e2e/readme-examples.test.ts starts it), apart from sendmock's suite.
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    root: fileURLToPath(new URL(".", import.meta.url)),
    include: ["*.test.ts"],
  },
});
