// `npm start` (scripts/start.mjs) serves from dist/ without rebuilding an unchanged tree,
// rebuilds first when a source under src/ changed, and stops when npm is stopped.

import { execFile, spawn } from "node:child_process";
import { appendFile, cp, mkdtemp, readFile, rm, symlink, utimes } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { aSendRequest, bearer } from "../support/helpers.js";
import { descendantsOf, health, startThroughNpm, stillRunning } from "../support/npm-process.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const BUILD_TIMEOUT_MS = 120_000;
const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/**
 * A copy of the built project, sharing this one's node_modules, with dist/ as the last build left
 * it. A copy that will build gets node_modules as hard links (see linkNodeModules).
 */
async function aBuiltCopy(willBuild = false): Promise<string> {
  const copy = await mkdtemp(path.join(os.tmpdir(), "sendmock-start-"));
  cleanups.push(() => rm(copy, { recursive: true, force: true }));
  for (const entry of ["src", "dist", "scripts", "openapi", "fixtures", "package.json", "tsconfig.json", "tsconfig.build.json", "tsdown.config.ts"]) {
    await cp(path.join(ROOT, entry), path.join(copy, entry), { recursive: true, preserveTimestamps: true });
  }
  if (willBuild) await linkNodeModules(copy);
  else await symlink(path.join(ROOT, "node_modules"), path.join(copy, "node_modules"));
  // As after `npm install`: the build is newer than every source.
  const now = new Date();
  await utimes(path.join(copy, "dist", "checked-contracts.json"), now, now);
  return copy;
}

/**
 * This project's node_modules in `copy`, as a tree of hard links where the file system allows
 * (0.6 s): tsc then finds its libraries under the copy's own path, as the last build recorded
 * them, and rebuilds incrementally (3 s of CPU). Through a symlink it finds them under this
 * project's path instead and rebuilds everything (9-10 s).
 */
async function linkNodeModules(copy: string): Promise<void> {
  try {
    await promisify(execFile)("cp", ["-al", path.join(ROOT, "node_modules"), path.join(copy, "node_modules")]);
  } catch {
    await rm(path.join(copy, "node_modules"), { recursive: true, force: true });
    await symlink(path.join(ROOT, "node_modules"), path.join(copy, "node_modules"));
  }
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
      const copy = await aBuiltCopy(true);
      const edited = path.join(copy, "src", "wire.ts");
      // A comment: it reaches dist/wire.js, and leaves the modules importing wire.ts unchecked again.
      const edit = `// edited at ${Date.now()}`;
      await appendFile(edited, `\n${edit}\n`);
      const later = new Date(Date.now() + 60_000);
      await utimes(edited, later, later);
      expect(await readFile(path.join(copy, "dist", "wire.js"), "utf8")).not.toContain(edit);

      const started = await startAndSend(copy);

      expect(started.status).toBe(200);
      expect(started.stderr).toContain("src/ changed since the last build; building");
      expect(await readFile(path.join(copy, "dist", "wire.js"), "utf8"), "dist/ was built from the edited source").toContain(edit);
    },
    BUILD_TIMEOUT_MS,
  );
});

describe("npm start, stopped through npm", () => {
  it.each(["SIGTERM", "SIGINT"] as const)(
    "stops the server when npm alone gets %s, within shutdown_grace_ms, and leaves no process",
    async (signal) => {
      // Spawned plainly, as a test's global setup would, and only npm's own pid signalled.
      const server = await startThroughNpm("npm", ["start", "--", "--port", "0"], ROOT);
      const npmPid = server.child.pid;
      if (npmPid === undefined) throw new Error("npm has no pid");
      const started = descendantsOf(npmPid);
      cleanups.push(() => {
        for (const pid of stillRunning(started)) process.kill(pid, "SIGKILL");
        return Promise.resolve();
      });
      expect(started, "npm started the server").not.toEqual([]);

      const signalled = performance.now();
      server.child.kill(signal);
      await server.closed;

      // shutdown_grace_ms is 5000 by default; an idle server needs far less.
      expect(performance.now() - signalled).toBeLessThan(5000);
      expect(await health(server.url)).toBe("refused");
      expect(stillRunning(started)).toEqual([]);
      expect(server.output()).toContain(`${signal} received, finishing in-flight requests`);
    },
    BUILD_TIMEOUT_MS,
  );
});
