// `npm start` (scripts/start.mjs) serves from dist/ without rebuilding an unchanged tree, and
// rebuilds first when a source under src/ changed.

import { spawn } from "node:child_process";
import { cp, mkdtemp, rm, stat, symlink, utimes } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { aSendRequest, bearer } from "../support/helpers.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const BUILD_TIMEOUT_MS = 120_000;
const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** A copy of the built project, sharing this one's node_modules, with dist/ as the last build left it. */
async function aBuiltCopy(): Promise<string> {
  const copy = await mkdtemp(path.join(os.tmpdir(), "sendmock-start-"));
  cleanups.push(() => rm(copy, { recursive: true, force: true }));
  for (const entry of ["src", "dist", "scripts", "openapi", "fixtures", "package.json", "tsconfig.json", "tsconfig.build.json"]) {
    await cp(path.join(ROOT, entry), path.join(copy, entry), { recursive: true, preserveTimestamps: true });
  }
  await symlink(path.join(ROOT, "node_modules"), path.join(copy, "node_modules"));
  // As after `npm install`: the build is newer than every source.
  const now = new Date();
  await utimes(path.join(copy, "dist", "checked-contracts.json"), now, now);
  return copy;
}

/** `node scripts/start.mjs --port 0` in `folder`: its stderr once it serves, after one send answered 200. */
async function startAndSend(folder: string): Promise<{ stderr: string; status: number }> {
  const child = spawn(process.execPath, ["scripts/start.mjs", "--port", "0"], { cwd: folder, stdio: ["ignore", "pipe", "pipe"] });
  cleanups.push(() => {
    child.kill("SIGKILL");
    return Promise.resolve();
  });
  let stdout = "";
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /http:\/\/127\.0\.0\.1:\d+/.exec(stdout);
      if (match) resolve(match[0]);
    });
    child.once("exit", (code) => reject(new Error(`exited with ${String(code)}: ${stderr}`)));
  });
  const answer = await fetch(`${url}/send`, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...bearer() },
    body: JSON.stringify(aSendRequest()),
  });
  return { stderr, status: answer.status };
}

describe("npm start", () => {
  it("serves an unchanged built tree without building", async () => {
    const copy = await aBuiltCopy();
    const started = await startAndSend(copy);
    expect(started.status).toBe(200);
    expect(started.stderr).not.toContain("building");
  });

  it(
    "rebuilds dist/ first when a source under src/ changed since the last build",
    async () => {
      const copy = await aBuiltCopy();
      const edited = path.join(copy, "src", "wire.ts");
      const later = new Date(Date.now() + 60_000);
      await utimes(edited, later, later);
      const builtBefore = (await stat(path.join(copy, "dist", "wire.js"))).mtimeMs;

      const started = await startAndSend(copy);

      expect(started.status).toBe(200);
      expect(started.stderr).toContain("src/ changed since the last build; building");
      expect((await stat(path.join(copy, "dist", "wire.js"))).mtimeMs).toBeGreaterThan(builtBefore);
    },
    BUILD_TIMEOUT_MS,
  );
});
