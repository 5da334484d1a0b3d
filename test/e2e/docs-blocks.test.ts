// Every fenced code block of README.md, CONTRIBUTING.md and docs/*.md is run or checked here, by the kind its info string names (see CONTRIBUTING.md, "Docs and their tests"); a block of no known kind fails.

import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../support/cli-process.js";
import { brokenLinks, checksOn } from "../support/docs/checks.js";
import { blocksOf, PAGES, SLOW } from "../support/docs/pages.js";
import { docsRig } from "../support/docs/rig.js";

const checkOf = checksOn(docsRig());

describe("the README is the first screen", () => {
  const readme = readFileSync(path.join(ROOT, "README.md"), "utf8");

  it("is at most 200 lines", () => {
    expect(readme.split("\n").length).toBeLessThanOrEqual(200);
  });

  it("links every page of docs/, and CONTRIBUTING.md", () => {
    const linked = new Set([...readme.matchAll(/\]\(((?:docs\/[\w-]+|CONTRIBUTING)\.md)(?:#[\w-]+)?\)/g)].map((match) => match[1]));
    expect(PAGES.filter((page) => page !== "README.md" && !linked.has(page))).toEqual([]);
  });

  it("shows the two commands as CI greps them", () => {
    expect(readme).toContain("npm install && npm start");
    expect(readme).toContain("npm install && npm test");
  });
});

for (const page of PAGES) {
  describe(page, () => {
    it("links only to files and headings that exist", () => {
      expect(brokenLinks(page)).toEqual([]);
    });

    for (const block of blocksOf(page)) {
      it(
        `checks its ${[block.lang || "(no language)", block.kind].filter((part) => part !== "").join(" ")} block at line ${block.line}`,
        async () => {
          const check = checkOf(block);
          if (check === undefined)
            throw new Error(`${page}:${block.line}: no way to check a block \`\`\`${block.lang} ${block.kind}: give it a kind this test knows`);
          await check(block);
        },
        SLOW.timeout,
      );
    }
  });
}
