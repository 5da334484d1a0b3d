// Two vitest workers in parallel on one sendmock, each in its own sandbox (sandboxClient, workerSandbox): neither sees,
// nor changes, what the other does; each asserts exact counts (test/support/sandbox-workers).

import path from "node:path";
import { expect, it } from "vitest";
import { aRunningMockForThisTest } from "../support/helpers.js";
import { ROOT, runVitest } from "../support/test-runners.js";

it("runs two workers side by side, each with exact counts in its own sandbox", async () => {
  const mock = await aRunningMockForThisTest();

  const { code, output } = await runVitest(path.join(ROOT, "test/support/sandbox-workers/vitest.config.ts"), { SENDMOCK_URL: mock.url });

  expect(output).toMatch(/Tests\s+2 passed/);
  expect(code).toBe(0);
  // Every send went to a worker's sandbox: the default sandbox got none.
  expect((await mock.journal.list()).total).toBe(0);
}, 90_000);
