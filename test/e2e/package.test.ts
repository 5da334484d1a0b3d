// The package as users get it: `npm pack` makes a tarball that installs into an empty project,
// whose `npx sendmock serve` serves, whose types typecheck, and whose library runs.
//
// The tarball is packed from this tree with `--ignore-scripts`: the e2e global setup has just
// built dist/ from the sources under test, so `prepare` would only build it again. Packing a
// copy instead made that build a full one (its symlinked node_modules resolve to other paths
// than the incremental build recorded): 9-10 s of CPU, a third of this file's.

import { execFile, spawn, type ChildProcess } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN } from "../support/cli-process.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const TSC = path.join(root, "node_modules/typescript/bin/tsc");
const INSTALL_TIMEOUT_MS = 120_000;

let work = ""; // every file this test makes is under it
let project = ""; // the empty project the tarball is installed into
let packedFiles: string[] = [];
const children = new Set<ChildProcess>();

/** The environment, less what npm sets for the script running vitest (it would point npm at this repo). */
function childEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !/^(npm_package_|npm_lifecycle_|npm_config_local_prefix$|npm_command$|init_cwd$)/i.test(key)),
  );
}

async function run(command: string, args: string[], cwd: string): Promise<string> {
  try {
    const { stdout } = await promisify(execFile)(command, args, {
      cwd,
      env: childEnv(),
      maxBuffer: 16 * 1024 * 1024,
      timeout: INSTALL_TIMEOUT_MS - 10_000,
    });
    return stdout;
  } catch (error) {
    const { stdout = "", stderr = "" } = error as { stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(" ")} failed in ${cwd}:\n${stdout}\n${stderr}`, { cause: error });
  }
}

interface PackReport {
  filename: string;
  files: { path: string }[];
}

beforeAll(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), "sendmock-package-"));

  const packOutput = await run("npm", ["pack", "--ignore-scripts", "--pack-destination", work, "--json"], root);
  const reports = JSON.parse(packOutput.slice(packOutput.search(/^\[/m))) as PackReport[];
  const report = reports[0];
  if (report === undefined) throw new Error(`npm pack reported no package:\n${packOutput}`);
  packedFiles = report.files.map((file) => file.path);

  project = path.join(work, "project");
  await mkdir(project);
  // What `npm init -y` and `npm pkg set type=module` write, less two runs of npm.
  await writeFile(path.join(project, "package.json"), `${JSON.stringify({ name: "project", version: "1.0.0", private: true, type: "module" }, null, 2)}\n`);
  await run("npm", ["install", path.join(work, report.filename), "--no-audit", "--no-fund", "--prefer-offline"], project);
}, INSTALL_TIMEOUT_MS);

afterAll(async () => {
  for (const child of children) {
    if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
      try {
        process.kill(-child.pid, "SIGKILL"); // its process group: npx, the shell, node
      } catch {
        // already gone
      }
    }
  }
  if (work !== "") await rm(work, { recursive: true, force: true });
});

describe("the tarball", () => {
  it("holds what users need, and no tests, TypeScript sources, source maps or node_modules", () => {
    expect(packedFiles).toEqual(
      expect.arrayContaining([
        "package.json",
        "README.md",
        "dist/index.js",
        "dist/index.d.ts",
        BIN,
        "dist/testing.js",
        "dist/testing.d.ts",
        "dist/vitest.js",
        "dist/vitest.d.ts",
        "dist/jest.js",
        "dist/jest.d.ts",
        "openapi/send.yaml",
        "openapi/admin.yaml",
        "fixtures/templates/welcome.yaml",
        "src/ui/index.html",
      ]),
    );
    const unwanted = packedFiles.filter(
      (file) =>
        file.startsWith("test/") ||
        file.startsWith("node_modules/") ||
        file.includes("/node_modules/") ||
        (file.startsWith("src/") && !file.startsWith("src/ui/")) ||
        (file.endsWith(".ts") && !file.endsWith(".d.ts")) ||
        file.endsWith(".map") ||
        /\.test\.[cm]?[jt]s$/.test(file),
    );
    expect(unwanted).toEqual([]);
  });
});

describe("installed into an empty project", () => {
  it("serves with npx sendmock serve --port 0, answers a send, and stops on SIGTERM", async () => {
    const server = spawn("npx", ["sendmock", "serve", "--port", "0"], {
      cwd: project,
      env: childEnv(),
      detached: true, // its own process group, so SIGTERM reaches node and not only npx
      stdio: ["ignore", "pipe", "pipe"],
    });
    children.add(server);
    let output = "";
    // "close", not "exit": npx may exit before the node it started, and even node's own exit
    // comes before its last writes are read. "close" fires once every process holding the
    // pipes (npx, its shell, node) has exited and all their output has been read.
    const closed = new Promise<void>((resolve) =>
      server.once("close", () => {
        resolve();
      }),
    );
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new Error(`no URL printed within 30 s:\n${output}`));
      }, 30_000);
      const onData = (chunk: Buffer): void => {
        output += chunk.toString();
        const found = /sendmock listening on (http:\/\/\S+)/.exec(output)?.[1];
        if (found !== undefined) {
          clearTimeout(timer);
          resolve(found);
        }
      };
      server.stdout.on("data", onData);
      server.stderr.on("data", onData);
      void closed.then(() => {
        reject(new Error(`npx sendmock exited before printing its URL:\n${output}`));
      });
    });

    const answer = await fetch(`${url}/send`, {
      method: "POST",
      headers: { Authorization: "Bearer test-key-1234", "Content-Type": "application/json" },
      body: JSON.stringify({
        to: "ada@example.com",
        template_id: "welcome",
        data: { name: "Ada", company: "Acme", login_url: "https://app.example.com/login" },
      }),
    });
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({ success: true, status: "queued" });
    expect(output).toContain("4 loaded from");

    if (server.pid === undefined) throw new Error("npx has no pid");
    process.kill(-server.pid, "SIGTERM");
    await closed;
    expect(output).toContain("SIGTERM received");
    // Every process that held the pipes has exited, node with its listening socket.
    await expect(fetch(`${url}/_mock/health`)).rejects.toThrow();
  }, 60_000);

  it("typechecks an app.ts importing sendmock and sendmock/testing, with the types of the installed package", async () => {
    await writeFile(
      path.join(project, "app.ts"),
      [
        `import { startSendMock, type CapturedMessage } from "sendmock";`,
        `import { setupSendMock } from "sendmock/testing";`,
        ``,
        `const mock = await startSendMock({ port: 0, watchTemplates: false });`,
        `const { messages } = await mock.outbox.list({ to: "ada@example.com" });`,
        `const first: CapturedMessage | undefined = messages[0];`,
        `console.log(first?.subject.toUpperCase());`,
        `await mock.close();`,
        `// @ts-expect-error: the types are sendmock's own, not any: a port is a number`,
        `await startSendMock({ port: "4010" });`,
        `const hook = (fn: () => Promise<void>, timeoutMs?: number): void => { void fn; void timeoutMs; };`,
        `const handle = setupSendMock({ onContractViolation: "error" }, { beforeAll: hook, afterEach: hook, afterAll: hook });`,
        `const url: string = handle.url;`,
        `console.log(url);`,
        `// @ts-expect-error: onContractViolation is "error", "warn" or "off"`,
        `setupSendMock({ onContractViolation: "loud" }, { beforeAll: hook, afterEach: hook, afterAll: hook });`,
        ``,
      ].join("\n"),
    );
    const listed = await run(
      process.execPath,
      // TypeScript's own lib files are not under test: checking them was 1.6 s of this tsc's 6 s of CPU.
      [TSC, "--noEmit", "--module", "nodenext", "--moduleResolution", "nodenext", "--strict", "--skipDefaultLibCheck", "--listFiles", "app.ts"],
      project,
    );
    expect(listed).toContain(path.join(project, "node_modules/sendmock/dist/index.d.ts"));
    expect(listed).toContain(path.join(project, "node_modules/sendmock/dist/testing.d.ts"));
  }, 60_000);

  it("resolves sendmock/testing, sendmock/vitest and sendmock/jest, whose helper runs without vitest installed", async () => {
    await writeFile(
      path.join(project, "helpers.mjs"),
      [
        `import { existsSync } from "node:fs";`,
        `import { setupSendMock } from "sendmock/testing";`,
        ``,
        `const resolved = ["sendmock/testing", "sendmock/vitest", "sendmock/jest"].map((name) => import.meta.resolve(name));`,
        `const hooks = {};`,
        `const sendmock = setupSendMock({ watchTemplates: false, onContractViolation: "error" }, {`,
        `  beforeAll: (fn) => { hooks.beforeAll = fn; }, afterEach: (fn) => { hooks.afterEach = fn; }, afterAll: (fn) => { hooks.afterAll = fn; },`,
        `});`,
        `await hooks.beforeAll();`,
        `await fetch(\`\${sendmock.url}/send\`, { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" });`,
        `const failure = await hooks.afterEach().then(() => "passed", (error) => error.message);`,
        `await hooks.afterAll();`,
        `console.log(JSON.stringify({ resolved, vitestInstalled: existsSync("node_modules/vitest"), failure }));`,
        ``,
      ].join("\n"),
    );
    const { resolved, vitestInstalled, failure } = JSON.parse((await run(process.execPath, ["helpers.mjs"], project)).trim()) as {
      resolved: string[];
      vitestInstalled: boolean;
      failure: string;
    };
    const dist = pathToFileURL(path.join(project, "node_modules/sendmock/dist")).href;
    expect(resolved).toEqual([`${dist}/testing.js`, `${dist}/vitest.js`, `${dist}/jest.js`]);
    expect(vitestInstalled).toBe(false);
    expect(failure).toMatch(/^sendmock: 1 request in this test broke the contract \(openapi\/send\.yaml\):\n {2}POST \/send -> 401 missing_api_key\n/);
  }, 60_000);

  it("runs an app.mjs that starts a mock on port 0, sends, reads outbox.list() and closes", async () => {
    await writeFile(
      path.join(project, "app.mjs"),
      [
        `import { startSendMock } from "sendmock";`,
        ``,
        `const mock = await startSendMock({ port: 0, watchTemplates: false });`,
        `try {`,
        `  const answer = await fetch(\`\${mock.url}/send\`, {`,
        `    method: "POST",`,
        `    headers: { Authorization: "Bearer test-key-1234", "Content-Type": "application/json" },`,
        `    body: JSON.stringify({ to: "ada@example.com", template_id: "welcome",`,
        `      data: { name: "Ada", company: "Acme", login_url: "https://app.example.com/login" } }),`,
        `  });`,
        `  const { messages, total } = await mock.outbox.list();`,
        `  console.log(JSON.stringify({ status: answer.status, total, to: messages[0]?.to, subject: messages[0]?.subject }));`,
        `} finally {`,
        `  await mock.close();`,
        `}`,
        ``,
      ].join("\n"),
    );
    const stdout = await run(process.execPath, ["app.mjs"], project);
    expect(JSON.parse(stdout.trim())).toEqual({
      status: 200,
      total: 1,
      to: "ada@example.com",
      subject: "Welcome to Acme, Ada!",
    });
  }, 60_000);
});
