// The Playwright example of docs/sandboxes.md, word for word, run against a small app and one sendmock: three browser
// tests at once, each in its own sandbox by the address it types, each counting exactly its own email.

import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { expect, it } from "vitest";
import { aRunningMockForThisTest } from "../support/helpers.js";
import { startSignupApp } from "../support/playwright-example/signup-app.js";
import { ROOT, runVitest } from "../support/test-runners.js";
import { chromiumMissing, chromiumPath } from "./browser/chromium.js";

const skipReason = chromiumMissing();

/** The `ts module` block of docs/sandboxes.md that is the example: the one naming sign-up.test.ts. */
async function exampleBlock(): Promise<string> {
  const page = await readFile(path.join(ROOT, "docs/sandboxes.md"), "utf8");
  const block = [...page.matchAll(/^```ts module\n([\s\S]*?)^```$/gm)].map((match) => match[1] ?? "").find((code) => code.startsWith("// sign-up.test.ts"));
  if (block === undefined) throw new Error("docs/sandboxes.md has no sign-up.test.ts block");
  return block;
}

it.skipIf(skipReason !== undefined)(
  "passes: three browser tests at once through one app, each with exactly its own email in its own sandbox",
  async () => {
    const mock = await aRunningMockForThisTest();
    const app = await startSignupApp(mock.url);
    try {
      const folder = path.join(ROOT, "test-results/playwright-example");
      await mkdir(folder, { recursive: true });
      await writeFile(path.join(folder, "sign-up.test.ts"), await exampleBlock());

      const { code, output } = await runVitest(path.join(ROOT, "test/support/playwright-example/vitest.config.ts"), {
        APP_URL: app.url,
        SENDMOCK_URL: mock.url,
        CHROMIUM: chromiumPath(),
      });

      expect(output).toMatch(/Tests\s+3 passed/);
      expect(code).toBe(0);
      // The app set no header: every email went to a sandbox by its address, none to the default one.
      expect((await mock.outbox.list()).total).toBe(0);
    } finally {
      await app.close();
    }
  },
  120_000,
);
