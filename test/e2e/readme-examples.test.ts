// The examples of the README and of docs/ are the files under examples/, word for word, and they pass when run by vitest (and
// jest's, a default CommonJS project's test file, in test/e2e/package.test.ts, with the packed package installed).

import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT, runVitest } from "../support/test-runners.js";

const VITEST_EXAMPLE = "examples/vitest/sign-up.test.ts";
const JEST_EXAMPLE = "examples/jest/sign-up.test.js";
const BOUNCE_EXAMPLE = "examples/vitest/bounce.test.ts";
const WEBHOOK_EXAMPLE = "examples/vitest/webhook.test.ts";
const FIRST_SEND_EXAMPLE = "examples/vitest/first-send.test.ts";
const MISTYPED_EXAMPLE = "examples/vitest/mistyped-address.test.ts";

/** The fenced code blocks of `page` (README.md, or a page of docs/), as `{lang, code}`: the language without the kind after it. */
async function codeBlocks(page: string): Promise<{ lang: string; code: string }[]> {
  const text = await readFile(path.join(ROOT, page), "utf8");
  return [...text.matchAll(/^```(\w*)[^\n]*\n([\s\S]*?)^```$/gm)].map((match) => ({ lang: match[1] ?? "", code: match[2] ?? "" }));
}

describe("README.md", () => {
  it("shows the first-send example as it is in examples/", async () => {
    const blocks = await codeBlocks("README.md");
    expect(blocks).toContainEqual({ lang: "ts", code: await readFile(path.join(ROOT, FIRST_SEND_EXAMPLE), "utf8") });
  });
});

describe("docs/delivery-events.md", () => {
  it("shows the bounce example as it is in examples/", async () => {
    const blocks = await codeBlocks("docs/delivery-events.md");
    expect(blocks).toContainEqual({ lang: "ts", code: await readFile(path.join(ROOT, BOUNCE_EXAMPLE), "utf8") });
  });

  it("shows the webhook receiver example as it is in examples/", async () => {
    const blocks = await codeBlocks("docs/delivery-events.md");
    expect(blocks).toContainEqual({ lang: "ts", code: await readFile(path.join(ROOT, WEBHOOK_EXAMPLE), "utf8") });
  });
});

describe("docs/library.md", () => {
  it("shows the vitest example and the jest example as they are in examples/", async () => {
    const blocks = await codeBlocks("docs/library.md");
    expect(blocks).toContainEqual({ lang: "ts", code: await readFile(path.join(ROOT, VITEST_EXAMPLE), "utf8") });
    expect(blocks).toContainEqual({ lang: "js", code: await readFile(path.join(ROOT, JEST_EXAMPLE), "utf8") });
    expect(blocks).toContainEqual({ lang: "ts", code: await readFile(path.join(ROOT, MISTYPED_EXAMPLE), "utf8") });
  });

  it("its vitest and mistyped-address examples (and the README's first-send example and the bounce and webhook examples of docs/delivery-events.md, run beside it) passes under vitest, importing sendmock/vitest through the package's exports", async () => {
    const { code, output } = await runVitest(path.join(ROOT, "examples/vitest/vitest.config.ts"));
    expect(output).toMatch(/Tests\s+9 passed \(9\)/);
    expect(code).toBe(0);
  }, 60_000);
});
