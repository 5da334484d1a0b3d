// src/generated/ is committed: it must be what `npm run generate` makes from openapi/send.yaml and
// admin.yaml now, so a change of a contract cannot leave the exported types (or the types
// src/wire.ts is held to) behind.

import { execFile } from "node:child_process";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));
const COMMITTED = path.join(root, "src/generated");
// The `generate` script, with the output sent to a temporary folder.
const GENERATE = path.join(root, "scripts/generate-types.mjs");

let tmp: string | undefined;

afterAll(async () => {
  if (tmp !== undefined) await rm(tmp, { recursive: true, force: true });
});

/** `line N: committed "…" / generated "…"` for the first line that differs. */
function firstDifference(committed: string, generated: string): string {
  const a = committed.split("\n");
  const b = generated.split("\n");
  const index = a.findIndex((line, i) => line !== b[i]);
  const at = index === -1 ? a.length : index;
  return `line ${String(at + 1)}: committed ${JSON.stringify(a[at] ?? "<end of file>")}, generated ${JSON.stringify(b[at] ?? "<end of file>")}`;
}

it("src/generated/ is up to date with openapi/send.yaml and admin.yaml", async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), "sendmock-generate-"));
  await promisify(execFile)(process.execPath, [GENERATE, tmp], { cwd: root });
  const names = [...new Set([...(await readdir(tmp)), ...(await readdir(COMMITTED))])].sort();
  for (const name of names) {
    // A file only one side has reads as empty on the other.
    const read = (file: string): Promise<string> => readFile(file, "utf8").catch(() => "");
    const [generated, committed] = await Promise.all([read(path.join(tmp, name)), read(path.join(COMMITTED, name))]);
    expect(
      generated === committed,
      `src/generated/${name} differs from what the contracts generate (${firstDifference(committed, generated)}): run npm run generate`,
    ).toBe(true);
  }
});
