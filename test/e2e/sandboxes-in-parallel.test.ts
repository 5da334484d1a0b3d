// Two vitest workers (sandboxClient, workerSandbox) and the Playwright example of docs/sandboxes.md, word for word, all
// at once on one sendmock: each run in its own sandboxes, none seeing or changing another's, each asserting exact counts.

import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { expect, it } from "vitest";
import { aRunningMockForThisTest } from "../support/helpers.js";
import { startSignupApp } from "../support/playwright-example/signup-app.js";
import { ROOT, runVitest, type RunResult } from "../support/test-runners.js";
import { chromiumMissing, chromiumPath } from "./browser/chromium.js";

/** Outside CI without Chromium, the workers run alone (the reason is printed); in CI the browser run must happen. */
const browserMissing = chromiumMissing();

/** The `ts module` block of docs/sandboxes.md that is the example: the one naming sign-up.test.ts. */
async function exampleBlock(): Promise<string> {
  const page = await readFile(path.join(ROOT, "docs/sandboxes.md"), "utf8");
  const block = [...page.matchAll(/^```ts module\n([\s\S]*?)^```$/gm)].map((match) => match[1] ?? "").find((code) => code.startsWith("// sign-up.test.ts"));
  if (block === undefined) throw new Error("docs/sandboxes.md has no sign-up.test.ts block");
  return block;
}

/** The example's three browser tests through a small sign-up app that sets no header: each sends to a sandbox by the address it types. */
async function runPlaywrightExample(sendmockUrl: string): Promise<RunResult> {
  const app = await startSignupApp(sendmockUrl);
  try {
    const folder = path.join(ROOT, "test-results/playwright-example");
    await mkdir(folder, { recursive: true });
    await writeFile(path.join(folder, "sign-up.test.ts"), await exampleBlock());
    return await runVitest(path.join(ROOT, "test/support/playwright-example/vitest.config.ts"), {
      APP_URL: app.url,
      SENDMOCK_URL: sendmockUrl,
      CHROMIUM: chromiumPath(),
    });
  } finally {
    await app.close();
  }
}

it("runs two vitest workers and three browser tests at once on one sendmock, each with exact counts in its own sandbox", async () => {
  const mock = await aRunningMockForThisTest();

  const [workers, browser] = await Promise.all([
    runVitest(path.join(ROOT, "test/support/sandbox-workers/vitest.config.ts"), { SENDMOCK_URL: mock.url }),
    browserMissing === undefined ? runPlaywrightExample(mock.url) : undefined,
  ]);

  expect(workers.output).toMatch(/Tests\s+2 passed/);
  expect(workers.code).toBe(0);
  if (browser !== undefined) {
    expect(browser.output).toMatch(/Tests\s+3 passed/);
    expect(browser.code).toBe(0);
  }
  // Every send went to a sandbox, by header or by address: the default sandbox got none.
  expect((await mock.journal.list()).total).toBe(0);
  expect((await mock.outbox.list()).total).toBe(0);
}, 120_000);
