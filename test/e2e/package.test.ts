// The package as users get it: `npm pack` makes a tarball that installs into a default CommonJS
// jest project, and (that install copied) into an ES-module vitest project, whose tests start a
// mock, send and read it back, and run the docs' one server per run with a sandbox per file from
// the global setups their configs name; both module systems load every entry point with their types; and `npx sendmock serve`
// serves, and stops when npx is stopped, leaving no process.
//
// The tarball is packed from this tree with `--ignore-scripts`: the e2e global setup has just
// built dist/ from the sources under test, so `prepare` would only build it again. Packing a
// copy instead made that build a full one (its symlinked node_modules resolve to other paths
// than the incremental build recorded): 9-10 s of CPU, a third of this file's.
//
// The projects run this repository's own jest and vitest (vitest linked into the ES-module
// project's node_modules, where sendmock/vitest imports it): installing them from the registry
// cost each project ~300 packages, and they are the versions sendmock is tested with.

import { execFile } from "node:child_process";
import { copyFile, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN } from "../support/cli-process.js";
import { descendantsOf, health, npmChildEnv, startThroughNpm, stillRunning } from "../support/npm-process.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const TSC = path.join(root, "node_modules/typescript/bin/tsc");
const JEST = path.join(root, "node_modules/jest/bin/jest.js");
const INSTALL_TIMEOUT_MS = 120_000;
/** Each entry point and the name of its files in dist/lib/. */
const ENTRY_POINTS: Record<string, string> = {
  sendmock: "index",
  "sendmock/testing": "testing",
  "sendmock/vitest": "vitest",
  "sendmock/jest": "jest",
  "sendmock/vitest/global-setup": "vitest-global-setup",
  "sendmock/jest/global-setup": "jest-global-setup",
  "sendmock/jest/global-teardown": "jest-global-teardown",
};
/** What the build writes to dist/ besides the library and the bin, read by a mock at start (the caniemail data: by its first message check). */
const BUILT_AHEAD = [
  "dist/checked-contracts.json",
  "dist/parsed-templates.json",
  "dist/caniemail.json",
  "dist/precompiled-schemas.cjs",
  "dist/precompiled-coercing-schemas.cjs",
  "dist/precompiled-input-checks.cjs",
];

let work = ""; // every file this test makes is under it
let jestProject = ""; // CommonJS, as `npm init -y` makes it: no "type"
let vitestProject = ""; // "type": "module"
let packedFiles: string[] = [];
const started: number[] = []; // the processes npx started, killed after the file if a test left any

async function run(command: string, args: string[], cwd: string): Promise<string> {
  try {
    const { stdout } = await promisify(execFile)(command, args, {
      cwd,
      env: npmChildEnv(),
      maxBuffer: 16 * 1024 * 1024,
      timeout: INSTALL_TIMEOUT_MS - 10_000,
    });
    return stdout;
  } catch (error) {
    const { stdout = "", stderr = "" } = error as { stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(" ")} failed in ${cwd}:\n${stdout}\n${stderr}`, { cause: error });
  }
}

/** A test runner in `cwd` as a user runs it from the shell, without the variables of the vitest running this file: its exit code and output. */
function runTests(args: string[], cwd: string): Promise<{ code: number; output: string }> {
  const env = Object.fromEntries(Object.entries(npmChildEnv()).filter(([key]) => !/^(VITEST|TINYPOOL|JEST)/i.test(key)));
  return new Promise((resolve) => {
    execFile(process.execPath, args, { cwd, env: { ...env, NO_COLOR: "1", FORCE_COLOR: "0" }, timeout: 60_000 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === "number" ? error.code : 1;
      resolve({ code, output: `${stdout}\n${stderr}` });
    });
  });
}

/** An empty project with this package.json, the tarball installed into it. */
async function aProject(name: string, manifest: Record<string, unknown>, tarball: string): Promise<string> {
  const folder = path.join(work, name);
  await mkdir(folder);
  await writeFile(path.join(folder, "package.json"), `${JSON.stringify({ name, version: "1.0.0", private: true, ...manifest }, null, 2)}\n`);
  await run("npm", ["install", "--save-dev", tarball, "--no-audit", "--no-fund", "--prefer-offline"], folder);
  return folder;
}

/**
 * A second project with what `project` installed: its manifest's dependencies, its lock file and
 * node_modules. npm installs the same tree whatever the project's "type"; installing the tarball a
 * second time cost 2.7-3.4 s of CPU, a fifth of this file's. node_modules is hard-linked (cp -al),
 * not copied: a copy of its ~3,300 files took 2-3 s here, 6.7 s on a busy machine, the links
 * 0.2-0.6 s. Nothing writes into an installed package (the runners keep their caches elsewhere or
 * in folders of the project's own, which are not linked); one that did would write through to
 * `project`'s install.
 */
async function aCopyOf(project: string, name: string, manifest: Record<string, unknown>): Promise<string> {
  const folder = path.join(work, name);
  await mkdir(folder);
  const { devDependencies } = JSON.parse(await readFile(path.join(project, "package.json"), "utf8")) as { devDependencies: Record<string, string> };
  await writeFile(path.join(folder, "package.json"), `${JSON.stringify({ name, version: "1.0.0", private: true, ...manifest, devDependencies }, null, 2)}\n`);
  await copyFile(path.join(project, "package-lock.json"), path.join(folder, "package-lock.json"));
  await run("cp", ["-al", path.join(project, "node_modules"), folder], project);
  return folder;
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

  const tarball = path.join(work, report.filename);
  jestProject = await aProject("jest-project", {}, tarball);
  vitestProject = await aCopyOf(jestProject, "vitest-project", { type: "module" });
  await symlink(path.join(root, "node_modules/vitest"), path.join(vitestProject, "node_modules/vitest"), "dir");
}, INSTALL_TIMEOUT_MS);

afterAll(async () => {
  for (const pid of stillRunning(started)) process.kill(pid, "SIGKILL");
  if (work !== "") await rm(work, { recursive: true, force: true });
});

describe("the tarball", () => {
  it("holds both builds of each entry point with their types, the bin and what a mock reads, and no tests, sources, source maps or node_modules", () => {
    const library = Object.values(ENTRY_POINTS).flatMap((entry) => ["mjs", "cjs", "d.mts", "d.cts"].map((extension) => `dist/lib/${entry}.${extension}`));
    expect(packedFiles).toEqual(
      expect.arrayContaining([
        "package.json",
        "README.md",
        "LICENSE",
        "CHANGELOG.md",
        ...library,
        BIN,
        ...BUILT_AHEAD,
        "openapi/send.yaml",
        "openapi/admin.yaml",
        "openapi/service.yaml",
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
        // tsc's file-by-file output stays home: the library and the bin are bundled.
        (file.startsWith("dist/") && !file.startsWith("dist/lib/") && !file.startsWith("dist/bin/") && !BUILT_AHEAD.includes(file)) ||
        /(?<!\.d)\.[cm]?ts$/.test(file) ||
        file.endsWith(".map") ||
        /\.test\.[cm]?[jt]s$/.test(file),
    );
    expect(unwanted).toEqual([]);
  });
});

describe("installed into a default CommonJS jest project", () => {
  it("passes the README's jest example and a test of require('sendmock') under plain jest: no flag, no transform, no config", async () => {
    await copyFile(path.join(root, "examples/jest/sign-up.test.js"), path.join(jestProject, "sign-up.test.js"));
    await writeFile(
      path.join(jestProject, "library.test.js"),
      [
        `const { startSendMock } = require("sendmock");`,
        ``,
        `test("starts a mock, sends, and reads the message back", async () => {`,
        `  const mock = await startSendMock({ port: 0, watchTemplates: false });`,
        `  try {`,
        `    const answer = await fetch(\`\${mock.url}/send\`, {`,
        `      method: "POST",`,
        `      headers: { Authorization: "Bearer test-key-1234", "Content-Type": "application/json" },`,
        `      body: JSON.stringify({ to: "ada@example.com", template_id: "welcome",`,
        `        data: { name: "Ada", company: "Acme", login_url: "https://app.example.com/login" } }),`,
        `    });`,
        `    expect(answer.status).toBe(200);`,
        `    const { messages } = await mock.outbox.list({ to: "ada@example.com" });`,
        `    expect(messages.map((message) => message.subject)).toEqual(["Welcome to Acme, Ada!"]);`,
        `  } finally {`,
        `    await mock.close();`,
        `  }`,
        `});`,
        ``,
      ].join("\n"),
    );
    const { code, output } = await runTests([JEST], jestProject);
    expect(output).toMatch(/Tests:\s+4 passed, 4 total/);
    expect(code).toBe(0);
  }, 60_000);

  it("resolves each entry point to its CommonJS build for require and its ES module build for import; sendmock/testing runs without vitest", async () => {
    const contractBreak = [
      `const hooks = {};`,
      `const sendmock = setupSendMock({ watchTemplates: false, onContractViolation: "error" }, {`,
      `  beforeAll: (fn) => { hooks.beforeAll = fn; }, afterEach: (fn) => { hooks.afterEach = fn; }, afterAll: (fn) => { hooks.afterAll = fn; },`,
      `});`,
      `await hooks.beforeAll();`,
      `await fetch(\`\${sendmock.url}/send\`, { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" });`,
      `const failure = await hooks.afterEach().then(() => "passed", (error) => error.message);`,
      `await hooks.afterAll();`,
    ];
    await writeFile(
      path.join(jestProject, "helpers.cjs"),
      [
        `const { existsSync } = require("node:fs");`,
        `const { setupSendMock } = require("sendmock/testing");`,
        `const { startSendMock } = require("sendmock");`,
        `(async () => {`,
        ...contractBreak,
        `  const resolved = ${JSON.stringify(Object.keys(ENTRY_POINTS))}.map((name) => require.resolve(name));`,
        `  console.log(JSON.stringify({ resolved, vitestInstalled: existsSync("node_modules/vitest"), failure, startSendMock: typeof startSendMock }));`,
        `})();`,
        ``,
      ].join("\n"),
    );
    await writeFile(
      path.join(jestProject, "helpers.mjs"),
      [
        `import { existsSync } from "node:fs";`,
        `import { setupSendMock } from "sendmock/testing";`,
        `import { startSendMock } from "sendmock";`,
        ...contractBreak,
        `const resolved = ${JSON.stringify(Object.keys(ENTRY_POINTS))}.map((name) => import.meta.resolve(name));`,
        `console.log(JSON.stringify({ resolved, vitestInstalled: existsSync("node_modules/vitest"), failure, startSendMock: typeof startSendMock }));`,
        ``,
      ].join("\n"),
    );
    const dist = path.join(jestProject, "node_modules/sendmock/dist/lib");
    const expected = (extension: string, toPath: (file: string) => string) => ({
      resolved: Object.values(ENTRY_POINTS).map((entry) => toPath(path.join(dist, `${entry}.${extension}`))),
      vitestInstalled: false,
      failure: expect.stringMatching(
        /^sendmock: 1 request in this test broke the contract \(openapi\/send\.yaml\):\n {2}POST \/send -> 401 missing_api_key\n/,
      ) as unknown,
      startSendMock: "function",
    });
    const [required, imported] = await Promise.all([run(process.execPath, ["helpers.cjs"], jestProject), run(process.execPath, ["helpers.mjs"], jestProject)]);
    expect(JSON.parse(required.trim())).toEqual(expected("cjs", (file) => file));
    expect(JSON.parse(imported.trim())).toEqual(expected("mjs", (file) => pathToFileURL(file).href));
  }, 60_000);

  it("typechecks an app.mts importing and an app.cts requiring sendmock and sendmock/testing, each with the types of its module system", async () => {
    const body = (module: "esm" | "cjs"): string[] => [
      module === "esm" ? `import { startSendMock, type CapturedMessage } from "sendmock";` : `import sendmock = require("sendmock");`,
      module === "esm"
        ? `import { sendmockGlobalSetup, setupSandbox, setupSendMock } from "sendmock/testing";`
        : `import testing = require("sendmock/testing");`,
      ...(module === "esm"
        ? []
        : [
            `const { startSendMock } = sendmock;`,
            `const { sendmockGlobalSetup, setupSandbox, setupSendMock } = testing;`,
            `type CapturedMessage = sendmock.CapturedMessage;`,
          ]),
      ``,
      `export async function main(): Promise<void> {`,
      `  const mock = await startSendMock({ port: 0, watchTemplates: false });`,
      `  const { messages } = await mock.outbox.list({ to: "ada@example.com" });`,
      `  const first: CapturedMessage | undefined = messages[0];`,
      `  console.log(first?.subject.toUpperCase());`,
      `  await mock.close();`,
      `  // @ts-expect-error: the types are sendmock's own, not any: a port is a number`,
      `  await startSendMock({ port: "4010" });`,
      `  const hook = (fn: () => Promise<void>, timeoutMs?: number): void => { void fn; void timeoutMs; };`,
      `  const handle = setupSendMock({ onContractViolation: "error" }, { beforeAll: hook, afterEach: hook, afterAll: hook });`,
      `  const url: string = handle.url;`,
      `  console.log(url);`,
      `  // @ts-expect-error: onContractViolation is "error", "warn" or "off"`,
      `  setupSendMock({ onContractViolation: "loud" }, { beforeAll: hook, afterEach: hook, afterAll: hook });`,
      `  const teardown: () => Promise<void> = await sendmockGlobalSetup({ templates: "emails" }).setup();`,
      `  await teardown();`,
      `  const baseUrl: string = setupSandbox({ url, onContractViolation: "off" }, { beforeAll: hook, afterEach: hook, afterAll: hook }).baseUrl;`,
      `  console.log(baseUrl);`,
      `  // @ts-expect-error: the global setup takes the options of startSendMock: a port is a number`,
      `  sendmockGlobalSetup({ port: "4010" });`,
      `}`,
      ``,
    ];
    await writeFile(path.join(jestProject, "app.mts"), body("esm").join("\n"));
    await writeFile(path.join(jestProject, "app.cts"), body("cjs").join("\n"));
    const listed = await run(
      process.execPath,
      // TypeScript's own lib files are not under test: checking them was 1.6 s of this tsc's 6 s of CPU.
      [TSC, "--noEmit", "--module", "nodenext", "--moduleResolution", "nodenext", "--strict", "--skipDefaultLibCheck", "--listFiles", "app.mts", "app.cts"],
      jestProject,
    );
    for (const types of ["index.d.mts", "testing.d.mts", "index.d.cts", "testing.d.cts"]) {
      expect(listed).toContain(path.join(jestProject, "node_modules/sendmock/dist/lib", types));
    }
  }, 60_000);

  it("runs the docs' one-server-per-run example: jest.config.js naming sendmock/jest/global-setup and global-teardown, and a file on setupSandbox", async () => {
    const project = await aCopyOf(jestProject, "jest-sandbox-project", {});
    for (const file of ["jest.config.js", "sign-up.test.js"]) await copyFile(path.join(root, "examples/sandbox-per-file/jest", file), path.join(project, file));
    const { code, output } = await runTests([JEST], project);
    expect(output).toMatch(/Tests:\s+3 passed, 3 total/);
    expect(code).toBe(0);
  }, 60_000);

  // `npx` is `npm exec`: one run covers both.
  it("npx sendmock serve serves, answers a send, and stops with all it started when npx alone gets SIGTERM", async () => {
    // Spawned plainly, as a test's global setup would: no process group of its own.
    const server = await startThroughNpm("npx", ["sendmock", "serve", "--port", "0"], jestProject);
    const npmPid = server.child.pid;
    if (npmPid === undefined) throw new Error("npx has no pid");
    const underNpm = descendantsOf(npmPid);
    started.push(...underNpm);

    const response = await fetch(`${server.url}/send`, {
      method: "POST",
      headers: { Authorization: "Bearer test-key-1234", "Content-Type": "application/json" },
      body: JSON.stringify({
        to: "ada@example.com",
        template_id: "welcome",
        data: { name: "Ada", company: "Acme", login_url: "https://app.example.com/login" },
      }),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ success: true, status: "queued" });
    expect(server.output()).toContain("4 loaded from");
    expect(underNpm, "npx started the server").not.toEqual([]);

    const signalled = performance.now();
    server.child.kill("SIGTERM");
    await server.closed;

    // Within shutdown_grace_ms (5000 by default), an idle server needing far less.
    expect(performance.now() - signalled).toBeLessThan(5000);
    expect(await health(server.url)).toBe("refused");
    expect(stillRunning(underNpm)).toEqual([]);
    // npx passed SIGTERM to the shell it runs the bin in: the server saw that shell go.
    expect(server.output()).toMatch(/parent process \d+ exited \(the package manager that started sendmock stopped\), finishing in-flight requests/);
  }, 60_000);
});

describe("installed into an ES-module vitest project", () => {
  it("passes a vitest test importing sendmock and sendmock/vitest (a mock per file and one started by hand), and the docs' one-server-per-run example: globalSetup sendmock/vitest/global-setup and a file on setupSandbox", async () => {
    for (const file of ["vitest.config.ts", "sign-up.test.ts"])
      await copyFile(path.join(root, "examples/sandbox-per-file/vitest", file), path.join(vitestProject, file));
    await writeFile(
      path.join(vitestProject, "library.test.ts"),
      [
        `import { expect, it } from "vitest";`,
        `import { startSendMock, type CapturedMessage } from "sendmock";`,
        `import { setupSendMock } from "sendmock/vitest";`,
        ``,
        `const sendmock = setupSendMock({ onContractViolation: "error", watchTemplates: false });`,
        ``,
        `async function send(url: string): Promise<number> {`,
        `  const answer = await fetch(\`\${url}/send\`, {`,
        `    method: "POST",`,
        `    headers: { Authorization: "Bearer test-key-1234", "Content-Type": "application/json" },`,
        `    body: JSON.stringify({ to: "ada@example.com", template_id: "welcome",`,
        `      data: { name: "Ada", company: "Acme", login_url: "https://app.example.com/login" } }),`,
        `  });`,
        `  return answer.status;`,
        `}`,
        ``,
        `it("captures a send to the file's mock", async () => {`,
        `  expect(await send(sendmock.url)).toBe(200);`,
        `  const email: CapturedMessage = await sendmock.outbox.waitFor({ to: "ada@example.com" }, { timeoutMs: 2000 });`,
        `  expect(email.subject).toBe("Welcome to Acme, Ada!");`,
        `});`,
        ``,
        `it("captures a send to a mock started by hand", async () => {`,
        `  const mock = await startSendMock({ port: 0, watchTemplates: false });`,
        `  try {`,
        `    expect(await send(mock.url)).toBe(200);`,
        `    expect((await mock.outbox.list()).messages.map((message) => message.subject)).toEqual(["Welcome to Acme, Ada!"]);`,
        `  } finally {`,
        `    await mock.close();`,
        `  }`,
        `});`,
        ``,
      ].join("\n"),
    );
    const { code, output } = await runTests([path.join(vitestProject, "node_modules/vitest/vitest.mjs"), "run"], vitestProject);
    expect(output).toMatch(/Tests\s+5 passed \(5\)/);
    expect(code).toBe(0);
  }, 60_000);
});
