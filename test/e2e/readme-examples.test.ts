// The README's "In tests" examples are the files under examples/, word for word, and they pass when run by vitest (and
// jest's, a default CommonJS project's test file, in test/e2e/package.test.ts, with the packed package installed).

import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT, runVitest } from "../support/test-runners.js";

const VITEST_EXAMPLE = "examples/vitest/sign-up.test.ts";
const JEST_EXAMPLE = "examples/jest/sign-up.test.js";
const BOUNCE_EXAMPLE = "examples/vitest/bounce.test.ts";
const WEBHOOK_EXAMPLE = "examples/vitest/webhook.test.ts";

/** The fenced code blocks of the README's section `heading`, as `{lang, code}`. */
async function codeBlocks(heading: string): Promise<{ lang: string; code: string }[]> {
  const readme = await readFile(path.join(ROOT, "README.md"), "utf8");
  const start = readme.indexOf(`\n${heading}\n`);
  if (start === -1) throw new Error(`README.md has no section ${heading}`);
  const next = readme.indexOf("\n## ", start + heading.length + 1);
  const section = readme.slice(start, next === -1 ? undefined : next);
  return [...section.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((match) => ({ lang: match[1] ?? "", code: match[2] ?? "" }));
}

describe('README "Delivery events"', () => {
  it("shows the bounce example as it is in examples/", async () => {
    const blocks = await codeBlocks("## Delivery events");
    expect(blocks).toContainEqual({ lang: "ts", code: await readFile(path.join(ROOT, BOUNCE_EXAMPLE), "utf8") });
  });

  it("shows the webhook receiver example as it is in examples/", async () => {
    const blocks = await codeBlocks("## Delivery events");
    expect(blocks).toContainEqual({ lang: "ts", code: await readFile(path.join(ROOT, WEBHOOK_EXAMPLE), "utf8") });
  });
});

describe('README "In tests: the library"', () => {
  it("shows the vitest example and the jest example as they are in examples/", async () => {
    const blocks = await codeBlocks("## In tests: the library");
    expect(blocks).toContainEqual({ lang: "ts", code: await readFile(path.join(ROOT, VITEST_EXAMPLE), "utf8") });
    expect(blocks).toContainEqual({ lang: "js", code: await readFile(path.join(ROOT, JEST_EXAMPLE), "utf8") });
  });

  it("its vitest example (and the bounce and webhook examples of Delivery events, run beside it) passes under vitest, importing sendmock/vitest through the package's exports", async () => {
    const { code, output } = await runVitest(path.join(ROOT, "examples/vitest/vitest.config.ts"));
    expect(output).toMatch(/Tests\s+6 passed \(6\)/);
    expect(code).toBe(0);
  }, 60_000);
});
