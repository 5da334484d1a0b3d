// `npm start` (scripts/start.mjs) serves from dist/ without rebuilding an unchanged tree,
// rebuilds first when a source under src/ changed, and stops when npm is stopped.

import { execFile, spawn } from "node:child_process";
import { appendFile, mkdtemp, readFile, rm, symlink, utimes, writeFile } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, it, type TestContext } from "vitest";
import { CLI } from "../support/cli-process.js";
import { aSendRequest, bearer } from "../support/helpers.js";
import { descendantsOf, health, parentOf, startThroughNpm, stillRunning } from "../support/npm-process.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const BUILD_TIMEOUT_MS = 120_000;
/** What each test gets to undo what it started: its own, as the tests run side by side. */
type OnTestFinished = TestContext["onTestFinished"];

/**
 * A copy of the built project, sharing this one's node_modules (a symlink), with dist/ as the last
 * build left it. A copy that will build gets its tsc build record pointed back at the files the
 * last build read outside src/ (see pointBuildRecordHome). Copied by `cp -a`, timestamps kept:
 * fs.cp took 0.8-0.9 s of CPU for the ~1,200 files, cp 0.4 s, and this file makes two copies.
 */
async function aBuiltCopy(onTestFinished: OnTestFinished, willBuild = false): Promise<string> {
  const copy = await mkdtemp(path.join(os.tmpdir(), "sendmock-start-"));
  onTestFinished(() => rm(copy, { recursive: true, force: true }));
  const entries = ["src", "dist", "scripts", "openapi", "fixtures", "package.json", "tsconfig.json", "tsconfig.build.json", "tsdown.config.ts"];
  await promisify(execFile)("cp", ["-a", ...entries.map((entry) => path.join(ROOT, entry)), copy]);
  await symlink(path.join(ROOT, "node_modules"), path.join(copy, "node_modules"));
  if (willBuild) await pointBuildRecordHome(copy);
  // As after `npm install`: the build is newer than every source.
  const now = new Date();
  await utimes(path.join(copy, "dist", "checked-contracts.json"), now, now);
  return copy;
}

/**
 * tsc's incremental record (dist/.tsbuildinfo) names each file it read relative to dist/: the
 * libraries as tsc found them, by their real path (`../node_modules/...` in a clone,
 * `../../main/node_modules/...` where node_modules is a symlink to another checkout). Read from the
 * copy's dist/, those names point at nothing, so tsc rebuilt everything: 8.7 s of CPU, over half
 * of this file's. Each name outside src/ is rewritten to the same file as seen from the copy's
 * dist/; tsc then rebuilds incrementally (2.5 s). This replaces hard-linking node_modules into the
 * copy (cp -al), which did the same only where node_modules is a folder, not a symlink.
 */
async function pointBuildRecordHome(copy: string): Promise<void> {
  const record = path.join(copy, "dist", ".tsbuildinfo");
  const info = JSON.parse(await readFile(record, "utf8")) as { fileNames: string[] };
  const [home, away, sources] = [path.join(ROOT, "dist"), path.join(copy, "dist"), path.join(ROOT, "src") + path.sep];
  info.fileNames = info.fileNames.map((name) => {
    const file = path.resolve(home, name);
    return file.startsWith(sources) ? name : path.relative(away, file);
  });
  await writeFile(record, JSON.stringify(info));
}

/** `node scripts/start.mjs --port 0` in `folder`: its stderr once it serves, after one send given a 200. */
async function startAndSend(folder: string, onTestFinished: OnTestFinished): Promise<{ stderr: string; status: number }> {
  const child = spawn(process.execPath, ["scripts/start.mjs", "--port", "0"], { cwd: folder, stdio: ["ignore", "pipe", "pipe"] });
  onTestFinished(() => {
    child.kill("SIGKILL");
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
    // "close": once its stderr has all been read, so the error says why it stopped.
    child.once("close", (code) => reject(new Error(`exited with ${String(code)}: ${stderr}`)));
  });
  const response = await fetch(`${url}/send`, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...bearer() },
    body: JSON.stringify(aSendRequest()),
  });
  return { stderr, status: response.status };
}

// The rebuild is most of this file's time (6.2 of 9.3 s alone): the first two describe blocks run
// side by side (describe.concurrent), the unchanged tree's start and the orphan's second of
// watching while it builds, each test cleaning up after itself. The stops through npm come after
// it: their time bound is not to be judged beside a build. This file alone, 2 runs each:
// 10.3 s -> 7.0-7.7 s.
describe.concurrent("npm start", () => {
  it("serves an unchanged built tree without building", async ({ expect, onTestFinished }) => {
    const copy = await aBuiltCopy(onTestFinished);
    const started = await startAndSend(copy, onTestFinished);
    expect(started.status).toBe(200);
    expect(started.stderr).not.toContain("building");
  });

  it(
    "rebuilds dist/ first when a source under src/ changed since the last build",
    async ({ expect, onTestFinished }) => {
      const copy = await aBuiltCopy(onTestFinished, true);
      const edited = path.join(copy, "src", "wire.ts");
      // A comment: it reaches dist/wire.js, and leaves the modules importing wire.ts unchecked again.
      const edit = `// edited at ${Date.now()}`;
      await appendFile(edited, `\n${edit}\n`);
      const later = new Date(Date.now() + 60_000);
      await utimes(edited, later, later);
      expect(await readFile(path.join(copy, "dist", "wire.js"), "utf8")).not.toContain(edit);

      const started = await startAndSend(copy, onTestFinished);

      expect(started.status).toBe(200);
      expect(started.stderr).toContain("src/ changed since the last build; building");
      expect(await readFile(path.join(copy, "dist", "wire.js"), "utf8"), "dist/ was built from the edited source").toContain(edit);
    },
    BUILD_TIMEOUT_MS,
  );
});

describe.concurrent("sendmock serve started without npm", () => {
  it("keeps serving after the process that started it exits: only a server started by a package manager watches its parent", async ({
    expect,
    onTestFinished,
  }) => {
    const folder = await mkdtemp(path.join(os.tmpdir(), "sendmock-orphan-"));
    onTestFinished(() => rm(folder, { recursive: true, force: true }));
    const log = path.join(folder, "serve.log");
    // No npm_* variable: as from a service script, a container's entry point or a shell.
    const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key)));
    // A shell that starts the server in the background and exits once it serves, leaving it
    // orphaned (exiting sooner, before node read its parent, would prove nothing).
    const script = `"$0" "$1" serve --port 0 >"$2" 2>&1 & echo $!; until grep -q "listening on" "$2"; do sleep 0.05; done`;
    const shell = promisify(execFile)("sh", ["-c", script, process.execPath, CLI, log], { env });
    const pid = Number((await shell).stdout.trim());
    onTestFinished(() => {
      for (const running of stillRunning([pid])) process.kill(running, "SIGKILL");
    });
    const url = /listening on (http:\/\/\S+)/.exec(await readFile(log, "utf8"))?.[1] ?? "";
    expect(parentOf(pid), "the shell that started it has exited").not.toBe(shell.child.pid);

    // A claim that something does not happen needs a span to hold in: a second, four of the
    // 250 ms polls a server started through npm makes of its parent.
    const until = performance.now() + 1000;
    while (performance.now() < until) {
      expect(await health(url)).toBe("answered");
      await sleep(100);
    }
    expect(await readFile(log, "utf8")).not.toContain("parent process");

    process.kill(pid, "SIGTERM");
    await expect.poll(() => health(url), { timeout: 5000, interval: 50 }).toBe("refused");
  });
});

describe("npm start, stopped through npm", () => {
  it.for(["SIGTERM", "SIGINT"] as const)(
    "stops the server when npm alone gets %s, within shutdown_grace_ms, and leaves no process",
    { timeout: BUILD_TIMEOUT_MS },
    async (signal, { expect, onTestFinished }) => {
      // Spawned plainly, as a test's global setup would, and only npm's own pid signalled.
      const server = await startThroughNpm("npm", ["start", "--", "--port", "0"], ROOT);
      const npmPid = server.child.pid;
      if (npmPid === undefined) throw new Error("npm has no pid");
      const started = descendantsOf(npmPid);
      onTestFinished(() => {
        for (const pid of stillRunning(started)) process.kill(pid, "SIGKILL");
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
  );
});
