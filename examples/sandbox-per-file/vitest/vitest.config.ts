// vitest.config.ts: one sendmock for the whole run, started before the first test file and stopped after the last.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    globalSetup: ["sendmock/vitest/global-setup"],
  },
});
