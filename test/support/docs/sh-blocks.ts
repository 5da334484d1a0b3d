// The docs' `sh` and `sh synopsis` blocks: each command run (curl, the built bin) or held to a rule (npm), and what it prints checked.

import { spawn } from "node:child_process";
import { cpSync, existsSync, readFileSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { expect, vi } from "vitest";
import { CLI, ROOT } from "../cli-process.js";
import { BINARY, binaryMissing } from "../built-artifacts.js";
import { redisUnavailableReason } from "../redis.js";
import { differences, expectationOf } from "./expectations.js";
import { CHECK_MAX_GENERATE, CHECK_MAX_RESPONSE_MS, CHECK_RATE, DOCS_KEY, DOCS_RECEIVER_URL, DOCS_URL, FIRST_SEND, sendHeaders, type Block } from "./pages.js";
import { run, stopped, type DocsRig } from "./rig.js";
import { commandsOf, environmentOf, shellWords, splitOnAnd, type Command } from "./shell.js";

/** The ids an `sh` block's responses named so far, by prefix: `flt_…` in a later line is the latest of them. */
type Ids = Map<string, string>;
const ID_PREFIXES = /\b(whd|wh|flt|out|msg|evt)_[A-Za-z0-9-]+/g;

export async function checkShBlock(block: Block, rig: DocsRig): Promise<void> {
  await rig.mock.reset();
  const first = await fetch(`${rig.mock.url}/send`, { method: "POST", headers: sendHeaders(), body: JSON.stringify(FIRST_SEND) });
  expect(first.status).toBe(200);
  const ids: Ids = new Map();
  const commands = commandsOf(block.code);
  expect(commands.length, "an sh block with no command").toBeGreaterThan(0);
  for (const command of commands) await checkCommand(command, ids, {}, rig);
}

/** Runs or checks one command line of the docs, with `env` (a CI step's variables) set. */
export async function checkCommand(command: Command, ids: Ids, env: Record<string, string>, rig: DocsRig): Promise<void> {
  const variables = { KEY: DOCS_KEY, STAGING_KEY: DOCS_KEY, ...env };
  const { words } = shellWords(command.text, variables);
  const parts = splitOnAnd(words);
  for (const part of parts) {
    const { env: assigned, rest } = environmentOf(part);
    const program = rest[0];
    if (program === "curl") await checkCurl(command, ids, variables, rig);
    else if (program === "sendmock" || (program === "npx" && rest[1] === "sendmock"))
      await checkSendmock(rest.slice(program === "npx" ? 2 : 1), assigned, command, rig);
    else if (program === "npm") checkNpm(rest.slice(1), assigned);
    else if (program !== undefined && path.basename(program) === path.basename(BINARY)) {
      // The single executable, built by .ci/run before the suite: without it (outside CI) the line is skipped, saying why.
      if (binaryMissing() === undefined) await checkSendmock(rest.slice(1), assigned, command, rig, BINARY);
    } else if (program === "pip") checkPip(rest.slice(1));
    else throw new Error(`no way to run or check this command: ${command.text}`);
  }
}

async function checkCurl(command: Command, ids: Ids, variables: Record<string, string>, rig: DocsRig): Promise<void> {
  const text = command.text
    .replaceAll(DOCS_URL, rig.mock.url)
    .replaceAll(DOCS_RECEIVER_URL, rig.receiverUrl)
    .replace(/\b(whd|wh|flt|out|msg|evt)_…/g, (whole, prefix: string) => {
      const id = ids.get(prefix);
      if (id === undefined) throw new Error(`${whole} in "${command.text}" names no id an earlier line of the block answered`);
      return id;
    });
  const args = shellWords(text, variables).words.slice(1);
  if (args.includes("-N")) return checkEventStream(args, command, rig);
  const headerFile = path.join(rig.work, `headers-${Date.now()}-${Math.random().toString(36).slice(2)}`);
  const response = await run("curl", [...args, "--max-time", "20", "-D", headerFile]);
  const expectation = expectationOf(command.result);
  const where = `${command.text}\n${response.stdout}`;
  if (expectation.noResponse) {
    expect(response.code, `no response (curl: Empty reply from server, exit 52) from: ${where}`).toBe(52);
    return;
  }
  expect(response.code, `curl's exit code: ${where}`).toBe(0);
  const dumped = (await readFile(headerFile, "utf8")).split(/\r\n\r\n/).filter((part) => part.trim() !== "");
  const head = (dumped.at(-1) ?? "").split("\r\n");
  const status = Number(/^HTTP\/[\d.]+ (\d{3})/.exec(head[0] ?? "")?.[1]);
  const headers = new Map(head.slice(1).map((line) => [line.slice(0, line.indexOf(":")).toLowerCase(), line.slice(line.indexOf(":") + 1).trim()]));
  for (const match of response.stdout.matchAll(ID_PREFIXES)) ids.set(match[1] ?? "", match[0]);

  if (expectation.status !== undefined) expect(status, `the status ${command.result} says: ${where}`).toBe(expectation.status);
  else if (expectation.body === undefined) expect(status, `below 400, as no status is shown: ${where}`).toBeLessThan(400);
  if (expectation.errorCode !== undefined) expect(headers.get("x-sendmock-error-code"), where).toBe(expectation.errorCode);
  for (const [name, value] of expectation.headers) expect(headers.get(name.toLowerCase()), `${name}: ${where}`).toBe(value);
  if (expectation.body !== undefined) {
    const body = args.includes("-i") || args.includes("-si") ? response.stdout.slice(response.stdout.indexOf("\r\n\r\n") + 4) : response.stdout;
    expect(differences(expectation.body, JSON.parse(body) as unknown), where).toEqual([]);
  }
}

/** `curl -N .../_mock/events`: the stream responds to a send with the events its comment lists, and no other kind. */
async function checkEventStream(args: string[], command: Command, rig: DocsRig): Promise<void> {
  const documented = new Set([...command.result.matchAll(/event: (\w+)/g)].map((match) => match[1]));
  expect(documented.size, "the event kinds the stream sends, as `# event: NAME` lines").toBeGreaterThan(0);
  const curl = spawn("curl", args);
  rig.children.push(curl);
  let output = "";
  curl.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  try {
    await vi.waitFor(() => expect(output).toContain(": connected"), { timeout: 5000 });
    await fetch(`${rig.mock.url}/send`, { method: "POST", headers: sendHeaders(), body: JSON.stringify(FIRST_SEND) });
    await vi.waitFor(() => expect(output).toMatch(/event: message[\s\S]*event: request|event: request[\s\S]*event: message/), { timeout: 5000 });
  } finally {
    curl.kill("SIGTERM");
  }
  const kinds = [...output.matchAll(/^event: (\w+)$/gm)].map((match) => match[1]);
  expect(kinds.filter((kind) => !documented.has(kind))).toEqual([]);
}

/** `sendmock serve|check|lint ...` run as the built bin, or as `executable` (the single executable) when given, in a folder of its own holding the files it names. */
async function checkSendmock(args: string[], assigned: Record<string, string>, command: Command, rig: DocsRig, executable?: string): Promise<void> {
  const [subcommand, ...rest] = args;
  const cwd = await rig.aFolder();
  const env = { ...assigned };
  if (env.SENDMOCK_REDIS_URL !== undefined) {
    const reason = redisUnavailableReason();
    if (reason !== undefined) return; // printed by redisUnavailableReason; in CI it throws instead
    env.SENDMOCK_REDIS_URL = await rig.redisUrl();
  }
  if (subcommand === "serve") {
    const serveArgs = withFreePort(rest);
    await filesNamedBy(serveArgs, cwd);
    const started = await rig.listening(["serve", ...serveArgs], { cwd, env, executable });
    expect((await fetch(`${started.url}/_mock/health`)).status).toBe(200);
    expect(await stopped(started), `${command.text}: ${started.stderr()}`).toBe(0);
    return;
  }
  if (subcommand === "check") {
    await filesNamedBy(rest, cwd);
    const target = await rig.theSpecService();
    const checkArgs = rest.map((word) => (/^https?:\/\//.test(word) ? (word.startsWith(DOCS_URL) ? word.replace(DOCS_URL, rig.mock.url) : target.url) : word));
    for (let at = 0; at < checkArgs.length; at += 1) {
      if (checkArgs[at] === "--rate-limit") checkArgs[at + 1] = CHECK_RATE;
      if (checkArgs[at] === "--max-response-ms") checkArgs[at + 1] = CHECK_MAX_RESPONSE_MS;
      if (checkArgs[at] === "--generate") checkArgs[at + 1] = String(Math.min(Number(checkArgs[at + 1]), CHECK_MAX_GENERATE));
    }
    if (!checkArgs.includes("--generate")) checkArgs.push("--generate", String(CHECK_MAX_GENERATE));
    const [program, programArgs] = executable === undefined ? [process.execPath, [CLI, "check"]] : [executable, ["check"]];
    const result = await run(program, [...programArgs, ...checkArgs], { cwd, env, timeoutMs: 50_000 });
    expect(result.code, `${command.text}\n${result.stdout}\n${result.stderr}`).toBe(0);
    return;
  }
  if (subcommand === "lint") {
    // The shipped templates in the folder it names (they pass), and the JUnit file it names written.
    await filesNamedBy(rest, cwd);
    const [program, programArgs] = executable === undefined ? [process.execPath, [CLI, "lint"]] : [executable, ["lint"]];
    const result = await run(program, [...programArgs, ...rest], { cwd, env, timeoutMs: 30_000 });
    expect(result.code, `${command.text}\n${result.stdout}\n${result.stderr}`).toBe(0);
    const junit = rest[rest.indexOf("--junit") + 1];
    if (rest.includes("--junit") && junit !== undefined) expect(await readFile(path.join(cwd, junit), "utf8")).toMatch(/^<\?xml /);
    return;
  }
  throw new Error(`no way to run: ${command.text}`);
}

/** `--port N` becomes `--port 0` (or is added): the docs' 4010 may be taken. */
function withFreePort(args: string[]): string[] {
  const at = args.indexOf("--port");
  if (at === -1) return [...args, "--port", "0"];
  return args.map((word, index) => (index === at + 1 ? "0" : word));
}

/** The templates folder, config file and waiver file a command names, made in `cwd`: the shipped templates, an empty config, no waivers. */
async function filesNamedBy(args: string[], cwd: string): Promise<void> {
  const templates = args[args.indexOf("--templates") + 1];
  if (args.includes("--templates") && templates !== undefined) cpSync(path.join(ROOT, "fixtures/templates"), path.join(cwd, templates), { recursive: true });
  const config = args[args.indexOf("--config") + 1];
  if (args.includes("--config") && config !== undefined) await writeFile(path.join(cwd, config), "# sendmock.yaml\n");
  const waivers = args[args.indexOf("--ignore") + 1];
  if (args.includes("--ignore") && waivers !== undefined) await writeFile(path.join(cwd, waivers), "# sendmock-waivers.yaml: nothing waived yet\n");
}

const PACKAGE = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
  name: string;
  version: string;
  files?: string[];
  scripts: Record<string, string>;
};

/** `pip install ./clients/python`: the distribution is there, named as the docs say. */
function checkPip(args: string[]): void {
  expect(args, "pip install of the Python client").toEqual(["install", "./clients/python"]);
  expect(readFileSync(path.join(ROOT, "clients", "python", "pyproject.toml"), "utf8")).toMatch(/^name = "sendmock"$/m);
}

/** npm lines install or take minutes: each is held to what makes it work instead. */
function checkNpm(args: string[], assigned: Record<string, string>): void {
  const [verb, ...rest] = args;
  if (verb === "install" && rest.length === 0) {
    expect(existsSync(path.join(ROOT, "package-lock.json")), "npm install installs the locked tree").toBe(true);
  } else if (verb === "install" && rest[0] === "-D" && rest.length === 2) {
    expect(rest[1], "the tarball npm pack writes").toBe(`./${PACKAGE.name}-${PACKAGE.version}.tgz`);
  } else if (verb === "pack" && rest.length === 0) {
    // What ships is checked whole by `npm run check:package` (prepublishOnly) and the package test; here, that the library and the bin are in it.
    expect(PACKAGE.files, "npm pack packs the files package.json lists").toEqual(expect.arrayContaining(["dist/lib", "dist/bin", "docs"]));
  } else if ((verb === "start" || verb === "test") && rest.length === 0) {
    expect(PACKAGE.scripts[verb], `npm ${verb}`).toBeDefined();
  } else if (verb === "run" && rest.length === 1) {
    const script = PACKAGE.scripts[rest[0] ?? ""];
    expect(script, `npm run ${rest[0]}`).toBeDefined();
    // The variables set before it are read by the scripts it runs, and a word value is one they know.
    const sources = [...(script ?? "").matchAll(/node (\S+\.mjs)/g)].map((match) => readFileSync(path.join(ROOT, match[1] ?? ""), "utf8")).join("\n");
    for (const [name, value] of Object.entries(assigned)) {
      expect(sources, `${name} is read by npm run ${rest[0]}`).toContain(name);
      if (!/^\d+$/.test(value)) expect(sources, `${name}=${value}`).toContain(`"${value}"`);
    }
    return;
  } else {
    throw new Error(`no rule for: npm ${args.join(" ")}`);
  }
  expect(Object.keys(assigned), `variables before npm ${verb}`).toEqual([]);
}

/** `sh synopsis`: the flags it names are the command's, it runs without its optional parts (a server until it listens, `lint` to its end), and prints what its comment shows. */
export async function checkSynopsis(block: Block, rig: DocsRig): Promise<void> {
  const [command] = commandsOf(block.code);
  if (!command || commandsOf(block.code).length !== 1) throw new Error("a synopsis is one command");
  const { rest } = environmentOf(shellWords(command.text).words);
  const args = rest.slice(rest[0] === "npx" ? 2 : 1);
  const subcommand = args[0] ?? "";
  const help = await run(process.execPath, [CLI, subcommand, "--help"]);
  const flags = [
    ...shellWords(command.text)
      .words.join(" ")
      .matchAll(/--[a-z][a-z-]*/g),
  ].map((match) => match[0]);
  expect(flags.filter((flag) => !help.stdout.includes(flag))).toEqual([]);

  const required = shellWords(command.text.replace(/\s*\[[^\]]*\]/g, "")).words;
  const shown = command.after;
  expect(shown.length, "the synopsis's output, as `# ` lines after it").toBeGreaterThan(0);
  if (subcommand === "lint") {
    // Run from the checkout, so that it prints the shipped templates' paths as the page shows them.
    const result = await run(process.execPath, [CLI, ...required.slice(required[0] === "npx" ? 2 : 1)], { cwd: ROOT });
    expect(result.code, result.stderr).toBe(0);
    const printed = result.stdout.split("\n").map((line) => line.trim());
    for (const line of shown) expect(printed, line).toContain(line.trim());
    return;
  }
  const started = await rig.listening(withFreePort(required.slice(required[0] === "npx" ? 2 : 1)), { cwd: await rig.aFolder() });
  const port = new URL(started.url).port;
  const printed = started
    .stdout()
    .split("\n")
    .map((line) => line.replaceAll(`127.0.0.1:${port}`, "127.0.0.1:4010").trim());
  for (const line of shown) expect(printed, line).toContain(line.trim());
  expect(await stopped(started)).toBe(0);
}
