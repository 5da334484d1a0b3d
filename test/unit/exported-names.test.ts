// One meaning per exported name: no two modules of src/ export the same name for different things
// (the pipeline's outcome and a message's delivery outcome were both `Outcome`). The facades that
// hand one thing on under its own name (the package's entry points) are the only repeats.

import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";

const SRC = path.join(import.meta.dirname, "../../src");
const DECLARATION = /^export (?:declare )?(?:async )?(?:type|interface|const|function|class|enum) ([A-Za-z_]\w*)/gm;

/** The same thing, exported again where a user imports it from. */
const FACADES: Record<string, readonly string[]> = {
  runCheck: ["check/run-check.ts", "index.ts"],
  planCheck: ["check/run-check.ts", "index.ts"],
  setupSendMock: ["jest.ts", "testing.ts", "vitest.ts"],
  setupSandbox: ["jest.ts", "testing.ts", "vitest.ts"],
};

function sources(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(folder, entry.name);
    if (entry.isDirectory()) return entry.name === "generated" ? [] : sources(file);
    return entry.name.endsWith(".ts") ? [file] : [];
  });
}

it("no two modules of src/ export one name, but the entry points' facades", () => {
  const where = new Map<string, Set<string>>();
  for (const file of sources(SRC)) {
    for (const [, name = ""] of readFileSync(file, "utf8").matchAll(DECLARATION)) {
      where.set(name, (where.get(name) ?? new Set()).add(path.relative(SRC, file)));
    }
  }
  const repeated = Object.fromEntries([...where].filter(([, files]) => files.size > 1).map(([name, files]) => [name, [...files].sort()]));
  expect(repeated).toEqual(FACADES);
});
