// src/generated/send-api.ts is committed: it must be what `npm run generate` makes from
// openapi/send.yaml now, so a change of the contract cannot leave the exported types behind.

import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));
const COMMITTED = path.join(root, "src/generated/send-api.ts");
// The same command as the `generate` script, with the output sent to a temporary file.
const CLI = path.join(root, "node_modules/openapi-typescript/bin/cli.js");

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

it("src/generated/send-api.ts is up to date with openapi/send.yaml", async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), "sendmock-generate-"));
  const output = path.join(tmp, "send-api.ts");
  await promisify(execFile)(process.execPath, [CLI, "openapi/send.yaml", "-o", output], { cwd: root });
  const [generated, committed] = await Promise.all([readFile(output, "utf8"), readFile(COMMITTED, "utf8")]);
  expect(
    generated === committed,
    `src/generated/send-api.ts differs from what openapi/send.yaml generates (${firstDifference(committed, generated)}): run npm run generate`,
  ).toBe(true);
});
