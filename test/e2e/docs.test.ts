// Every fenced code block of README.md, CONTRIBUTING.md and docs/*.md is run or checked here, by the kind its info string names (see CONTRIBUTING.md, "Docs and their tests"); a block of no known kind fails.

import { execFile, spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { cpSync, existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import ts from "typescript";
import { parse as parseYaml } from "yaml";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { resolveConfig } from "../../src/config/resolve.js";
import { loadContract } from "../../src/contract/load.js";
import { compiledAtRunTime } from "../../src/contract/engine.js";
import { componentPointer } from "../../src/contract/document-pointers.js";
import { renderTemplate } from "../../src/domain/render.js";
import { loadTemplateCatalog } from "../../src/domain/templates.js";
import { startSendMock, type RunningSendMock } from "../../src/index.js";
import { contractBreaks, describeContractBreaks } from "../../src/testing.js";
import { CLI, ROOT, runCli, type CliRun } from "../support/cli-process.js";
import { redisUnavailableReason, sharedRedis } from "../support/redis.js";
import { startSpecService, type SpecService } from "../support/spec-service.js";

/** The pages whose blocks are checked: the README, CONTRIBUTING.md and every page of docs/. */
const PAGES = [
  "README.md",
  "CONTRIBUTING.md",
  ...readdirSync(path.join(ROOT, "docs"))
    .filter((name) => name.endsWith(".md"))
    .sort()
    .map((name) => `docs/${name}`),
];

/** The URL the docs show for a local sendmock, and for an app's webhook receiver. */
const DOCS_URL = "http://127.0.0.1:4010";
const DOCS_RECEIVER_URL = "http://127.0.0.1:3000";
/** The first screen's send: every `sh` block starts on a mock that holds it, as a reader's would. */
const FIRST_SEND = { to: "ada@example.com", template_id: "welcome", data: { name: "Ada", company: "Acme", login_url: "https://app.example.com/login" } };
const API_KEY = "test-key-1234";
/** Variables the docs' commands read: a key, and where the CI example's staging service is. */
const DOCS_KEY = "test-key-3f9a";
/** `check` runs paced or long in the docs are shortened: how long a run takes is not what is checked. */
const CHECK_RATE = "1000/s";
const CHECK_MAX_GENERATE = 10;
const SLOW = { timeout: 60_000 };

interface Block {
  page: string;
  /** The line of the opening fence, 1-based. */
  line: number;
  lang: string;
  /** What follows the language in the info string: how the block is checked. */
  kind: string;
  code: string;
}

function blocksOf(page: string): Block[] {
  const lines = readFileSync(path.join(ROOT, page), "utf8").split("\n");
  const blocks: Block[] = [];
  for (let index = 0; index < lines.length; index += 1) {
    const open = /^```(\S*)\s*(.*)$/.exec(lines[index] ?? "");
    if (!open) continue;
    const end = lines.findIndex((line, at) => at > index && line === "```");
    if (end === -1) throw new Error(`${page}:${index + 1}: a code block that is never closed`);
    blocks.push({ page, line: index + 1, lang: open[1] ?? "", kind: (open[2] ?? "").trim(), code: lines.slice(index + 1, end).join("\n") + "\n" });
    index = end;
  }
  return blocks;
}

// ---------------------------------------------------------------------------------------------
// What the blocks run against: one in-process sendmock for every curl line, a webhook receiver
// that responds with 500 (the docs' example delivery failed), a stand-in for the real service for
// `check`, and the child processes and folders to clean up.

let mock: RunningSendMock;
let receiver: Server;
let receiverUrl = "";
let work = "";
const children: ChildProcessWithoutNullStreams[] = [];
let specService: Promise<SpecService> | undefined;
let stopRedis: (() => Promise<void>) | undefined;

beforeAll(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), "sendmock-docs-"));
  mock = await startSendMock({ port: 0, watchTemplates: false });
  receiver = createServer((req, res) => {
    req.resume();
    req.on("end", () => res.writeHead(500).end("no"));
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
}, 30_000);

afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  await Promise.all([
    mock.close(),
    new Promise<void>((resolve) => {
      receiver.closeAllConnections();
      receiver.close(() => resolve());
    }),
    specService?.then((service) => service.close()),
    stopRedis?.(),
  ]);
  if (work !== "") await rm(work, { recursive: true, force: true });
});

function theSpecService(): Promise<SpecService> {
  specService ??= startSpecService("conforming");
  return specService;
}

/** A fresh folder under the test's own, for one command's files. */
async function aFolder(): Promise<string> {
  return mkdtemp(path.join(work, "run-"));
}

async function aClosedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], options: { cwd?: string; env?: Record<string, string>; timeoutMs?: number } = {}): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      { cwd: options.cwd ?? ROOT, env: { ...process.env, ...options.env }, timeout: options.timeoutMs ?? 30_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : 1;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** `sendmock ...args` with the built bin, once it prints the URL it listens on. */
async function listening(args: string[], options: { cwd: string; env?: Record<string, string> }): Promise<CliRun & { url: string }> {
  const started = runCli(args, children, options);
  const url = await new Promise<string>((resolve, reject) => {
    started.child.stdout.on("data", () => {
      const match = /listening on (http:\/\/[\w.]+:\d+)/.exec(started.stdout());
      if (match?.[1]) resolve(match[1]);
    });
    void started.exited.then((code) => reject(new Error(`sendmock ${args.join(" ")} exited with ${String(code)}: ${started.stderr()}`)));
  });
  return { ...started, url };
}

/** SIGTERM, as Ctrl-C or a container stop would: the docs promise exit code 0. */
async function stopped(started: CliRun): Promise<number | null> {
  started.child.kill("SIGTERM");
  return started.exited;
}

// ---------------------------------------------------------------------------------------------
// Shell lines: split as a POSIX shell would, so a command runs with the arguments a reader's
// shell would give it.

/** Words of a command line: quotes, backslashes and $VAR as the shell reads them; an unquoted `#` starting a word begins the comment. */
function shellWords(line: string, env: Record<string, string> = {}): { words: string[]; comment: string } {
  const words: string[] = [];
  let word: string | undefined;
  let quote: "'" | '"' | undefined;
  const variable = (at: number): { value: string; length: number } | undefined => {
    const match = /^\$(?:\{(\w+)\}|(\w+))/.exec(line.slice(at));
    if (!match) return undefined;
    const name = match[1] ?? match[2] ?? "";
    return { value: env[name] ?? process.env[name] ?? "", length: match[0].length };
  };
  for (let at = 0; at < line.length; at += 1) {
    const char = line[at] ?? "";
    if (quote === "'") {
      if (char === "'") quote = undefined;
      else word = (word ?? "") + char;
    } else if (quote === '"') {
      if (char === '"') quote = undefined;
      else if (char === "\\" && /["\\$`]/.test(line[at + 1] ?? "")) word = (word ?? "") + (line[++at] ?? "");
      else if (char === "$" && variable(at)) {
        const found = variable(at);
        word = (word ?? "") + (found?.value ?? "");
        at += (found?.length ?? 1) - 1;
      } else word = (word ?? "") + char;
    } else if (/\s/.test(char)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (char === "#" && word === undefined) {
      return { words, comment: line.slice(at + 1).trim() };
    } else if (char === "'" || char === '"') {
      quote = char;
      word ??= "";
    } else if (char === "\\") {
      word = (word ?? "") + (line[++at] ?? "");
    } else if (char === "$" && variable(at)) {
      const found = variable(at);
      word = (word ?? "") + (found?.value ?? "");
      at += (found?.length ?? 1) - 1;
    } else {
      word = (word ?? "") + char;
    }
  }
  if (quote !== undefined) throw new Error(`unclosed ${quote} in: ${line}`);
  if (word !== undefined) words.push(word);
  return { words, comment: "" };
}

interface Command {
  /** The command as written, continuation lines joined. */
  text: string;
  /** Its trailing comment and the comment lines after it: what it prints. */
  result: string;
  /** The comment lines after it, each without its `#`. */
  after: string[];
}

/** The commands of an `sh` block; comment lines before the first command are headings. */
function commandsOf(code: string): Command[] {
  const commands: Command[] = [];
  const lines = code.split("\n");
  for (let index = 0; index < lines.length; index += 1) {
    let line = lines[index] ?? "";
    if (line.trim() === "") continue;
    if (line.trimStart().startsWith("#")) {
      const last = commands.at(-1);
      const comment = line.trimStart().replace(/^#\s*/, "");
      if (last) {
        last.after.push(comment);
        last.result = `${last.result} ${comment}`.trim();
      }
      continue;
    }
    // A line ending in a backslash goes on, and so does one that leaves a quote open (a JSON body over two lines).
    for (;;) {
      if (line.endsWith("\\") && index + 1 < lines.length) line = `${line.slice(0, -1)} ${(lines[++index] ?? "").trim()}`;
      else if (hasOpenQuote(line) && index + 1 < lines.length) line = `${line}\n${lines[++index] ?? ""}`;
      else break;
    }
    commands.push({ text: line, result: shellWords(line).comment, after: [] });
  }
  return commands;
}

function hasOpenQuote(line: string): boolean {
  try {
    shellWords(line);
    return false;
  } catch {
    return true;
  }
}

/** Leading `NAME=value` words: the environment a command is run with. */
function environmentOf(words: string[]): { env: Record<string, string>; rest: string[] } {
  const env: Record<string, string> = {};
  let at = 0;
  for (; at < words.length; at += 1) {
    const match = /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(words[at] ?? "");
    if (!match) break;
    env[match[1] ?? ""] = match[2] ?? "";
  }
  return { env, rest: words.slice(at) };
}

/** `a && b` as two commands. */
function splitOnAnd(words: string[]): string[][] {
  const parts: string[][] = [[]];
  for (const word of words) {
    if (word === "&&") parts.push([]);
    else parts.at(-1)?.push(word);
  }
  return parts;
}

// ---------------------------------------------------------------------------------------------
// What a command prints, as its comment says it.

interface Expectation {
  status?: number;
  errorCode?: string;
  headers: [string, string][];
  body?: unknown;
  noResponse: boolean;
}

/** The JSON value at the start of `text`, and the prose after it. */
function leadingJson(text: string): { value: unknown; rest: string } {
  let depth = 0;
  let inString = false;
  for (let at = 0; at < text.length; at += 1) {
    const char = text[at];
    if (inString) {
      if (char === "\\") at += 1;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === "{" || char === "[") depth += 1;
    else if (char === "}" || char === "]") {
      depth -= 1;
      if (depth === 0) return { value: JSON.parse(text.slice(0, at + 1)) as unknown, rest: text.slice(at + 1) };
    }
  }
  throw new Error(`no whole JSON value at the start of: ${text}`);
}

function expectationOf(result: string): Expectation {
  const expectation: Expectation = { headers: [], noResponse: false };
  if (result.startsWith("{") || result.startsWith("[")) {
    expectation.body = leadingJson(result).value;
    return expectation;
  }
  if (result.startsWith("no response")) {
    expectation.noResponse = true;
    return expectation;
  }
  const status = /^(\d{3})\b(.*)$/.exec(result) ?? /\((\d{3})\)()$/.exec(result);
  if (!status) return expectation;
  expectation.status = Number(status[1]);
  const rest = status[2] ?? "";
  expectation.errorCode = /^ `?([a-z]+(?:_[a-z]+)+)`?/.exec(rest)?.[1];
  for (const header of rest.matchAll(/[,;] ([A-Z][A-Za-z-]+): ([^\s,;]+)/g)) expectation.headers.push([header[1] ?? "", header[2] ?? ""]);
  return expectation;
}

const ISO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;
/** Members whose value is a measurement, not a fact: any number will do. */
const MEASURED = new Set(["duration_ms", "time"]);

/** Where `actual` departs from `expected`: `…` in a string stands for any text, a date-time for any date-time. */
function differences(expected: unknown, actual: unknown, at = ""): string[] {
  if (typeof expected === "string") {
    if (typeof actual !== "string") return [`${at || "/"}: expected a string, got ${JSON.stringify(actual)}`];
    const pattern = ISO_TIME.test(expected)
      ? ISO_TIME
      : new RegExp(
          `^${expected
            .split("…")
            .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
            .join("[\\s\\S]*")}$`,
        );
    return pattern.test(actual) ? [] : [`${at || "/"}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`];
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length) return [`${at || "/"}: expected ${expected.length} items, got ${JSON.stringify(actual)}`];
    return expected.flatMap((item, index) => differences(item, actual[index], `${at}/${index}`));
  }
  if (expected !== null && typeof expected === "object") {
    if (actual === null || typeof actual !== "object" || Array.isArray(actual)) return [`${at || "/"}: expected an object, got ${JSON.stringify(actual)}`];
    const [want, got] = [Object.keys(expected).sort(), Object.keys(actual).sort()];
    if (want.join() !== got.join()) return [`${at || "/"}: expected members ${want.join(", ")}, got ${got.join(", ")}`];
    return want.flatMap((key) => {
      const [expectedValue, actualValue] = [(expected as Record<string, unknown>)[key], (actual as Record<string, unknown>)[key]];
      if (MEASURED.has(key)) return typeof actualValue === typeof expectedValue ? [] : [`${at}/${key}: expected a ${typeof expectedValue}`];
      return differences(expectedValue, actualValue, `${at}/${key}`);
    });
  }
  return Object.is(expected, actual) ? [] : [`${at || "/"}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`];
}

// ---------------------------------------------------------------------------------------------
// `sh` blocks.

/** The ids an `sh` block's responses named so far, by prefix: `flt_…` in a later line is the latest of them. */
type Ids = Map<string, string>;
const ID_PREFIXES = /\b(whd|wh|flt|out|msg|evt)_[A-Za-z0-9-]+/g;

async function checkShBlock(block: Block): Promise<void> {
  await mock.reset();
  const first = await fetch(`${mock.url}/send`, { method: "POST", headers: sendHeaders(), body: JSON.stringify(FIRST_SEND) });
  expect(first.status).toBe(200);
  const ids: Ids = new Map();
  const commands = commandsOf(block.code);
  expect(commands.length, "an sh block with no command").toBeGreaterThan(0);
  for (const command of commands) await checkCommand(command, ids, {});
}

function sendHeaders(): Record<string, string> {
  return { Authorization: `Bearer ${API_KEY}`, "Content-Type": "application/json" };
}

/** Runs or checks one command line of the docs, with `env` (a CI step's variables) set. */
async function checkCommand(command: Command, ids: Ids, env: Record<string, string>): Promise<void> {
  const variables = { KEY: DOCS_KEY, STAGING_KEY: DOCS_KEY, ...env };
  const { words } = shellWords(command.text, variables);
  const parts = splitOnAnd(words);
  for (const part of parts) {
    const { env: assigned, rest } = environmentOf(part);
    const program = rest[0];
    if (program === "curl") await checkCurl(command, ids, variables);
    else if (program === "sendmock" || (program === "npx" && rest[1] === "sendmock"))
      await checkSendmock(rest.slice(program === "npx" ? 2 : 1), assigned, command);
    else if (program === "npm") checkNpm(rest.slice(1), assigned);
    else throw new Error(`no way to run or check this command: ${command.text}`);
  }
}

async function checkCurl(command: Command, ids: Ids, variables: Record<string, string>): Promise<void> {
  const text = command.text
    .replaceAll(DOCS_URL, mock.url)
    .replaceAll(DOCS_RECEIVER_URL, receiverUrl)
    .replace(/\b(whd|wh|flt|out|msg|evt)_…/g, (whole, prefix: string) => {
      const id = ids.get(prefix);
      if (id === undefined) throw new Error(`${whole} in "${command.text}" names no id an earlier line of the block answered`);
      return id;
    });
  const args = shellWords(text, variables).words.slice(1);
  if (args.includes("-N")) return checkEventStream(args, command);
  const headerFile = path.join(work, `headers-${Date.now()}-${Math.random().toString(36).slice(2)}`);
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
async function checkEventStream(args: string[], command: Command): Promise<void> {
  const documented = new Set([...command.result.matchAll(/event: (\w+)/g)].map((match) => match[1]));
  expect(documented.size, "the event kinds the stream sends, as `# event: NAME` lines").toBeGreaterThan(0);
  const curl = spawn("curl", args);
  children.push(curl);
  let output = "";
  curl.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  try {
    await vi.waitFor(() => expect(output).toContain(": connected"), { timeout: 5000 });
    await fetch(`${mock.url}/send`, { method: "POST", headers: sendHeaders(), body: JSON.stringify(FIRST_SEND) });
    await vi.waitFor(() => expect(output).toMatch(/event: message[\s\S]*event: request|event: request[\s\S]*event: message/), { timeout: 5000 });
  } finally {
    curl.kill("SIGTERM");
  }
  const kinds = [...output.matchAll(/^event: (\w+)$/gm)].map((match) => match[1]);
  expect(kinds.filter((kind) => !documented.has(kind))).toEqual([]);
}

/** `sendmock serve|check ...` with the built bin, in a folder of its own holding the files it names. */
async function checkSendmock(args: string[], assigned: Record<string, string>, command: Command): Promise<void> {
  const [subcommand, ...rest] = args;
  const cwd = await aFolder();
  const env = { ...assigned };
  if (env.SENDMOCK_REDIS_URL !== undefined) {
    const reason = redisUnavailableReason();
    if (reason !== undefined) return; // printed by redisUnavailableReason; in CI it throws instead
    const redis = await sharedRedis();
    stopRedis = redis.stop;
    env.SENDMOCK_REDIS_URL = redis.url;
  }
  if (subcommand === "serve") {
    const serveArgs = withFreePort(rest);
    await filesNamedBy(serveArgs, cwd);
    const started = await listening(["serve", ...serveArgs], { cwd, env });
    expect((await fetch(`${started.url}/_mock/health`)).status).toBe(200);
    expect(await stopped(started), `${command.text}: ${started.stderr()}`).toBe(0);
    return;
  }
  if (subcommand === "check") {
    const target = await theSpecService();
    const checkArgs = rest.map((word) => (/^https?:\/\//.test(word) ? (word.startsWith(DOCS_URL) ? word.replace(DOCS_URL, mock.url) : target.url) : word));
    for (let at = 0; at < checkArgs.length; at += 1) {
      if (checkArgs[at] === "--rate-limit") checkArgs[at + 1] = CHECK_RATE;
      if (checkArgs[at] === "--generate") checkArgs[at + 1] = String(Math.min(Number(checkArgs[at + 1]), CHECK_MAX_GENERATE));
    }
    if (!checkArgs.includes("--generate")) checkArgs.push("--generate", String(CHECK_MAX_GENERATE));
    const result = await run(process.execPath, [CLI, "check", ...checkArgs], { cwd, env, timeoutMs: 50_000 });
    expect(result.code, `${command.text}\n${result.stdout}\n${result.stderr}`).toBe(0);
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

/** The templates folder and config file a command names, made in `cwd`: the shipped templates, an empty config. */
async function filesNamedBy(args: string[], cwd: string): Promise<void> {
  const templates = args[args.indexOf("--templates") + 1];
  if (args.includes("--templates") && templates !== undefined) cpSync(path.join(ROOT, "fixtures/templates"), path.join(cwd, templates), { recursive: true });
  const config = args[args.indexOf("--config") + 1];
  if (args.includes("--config") && config !== undefined) await writeFile(path.join(cwd, config), "# sendmock.yaml\n");
}

const PACKAGE = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as {
  name: string;
  version: string;
  files?: string[];
  scripts: Record<string, string>;
};

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

/** `sh synopsis`: the flags it names are the command's, it runs without its optional parts, and prints what its comment shows. */
async function checkSynopsis(block: Block): Promise<void> {
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
  const started = await listening(withFreePort(required.slice(required[0] === "npx" ? 2 : 1)), { cwd: await aFolder() });
  const port = new URL(started.url).port;
  const shown = command.after;
  expect(shown.length, "the synopsis's output, as `# ` lines after it").toBeGreaterThan(0);
  const printed = started
    .stdout()
    .split("\n")
    .map((line) => line.replaceAll(`127.0.0.1:${port}`, "127.0.0.1:4010").trim());
  for (const line of shown) expect(printed, line).toContain(line.trim());
  expect(await stopped(started)).toBe(0);
}

// ---------------------------------------------------------------------------------------------
// TypeScript: typechecked against the package's types (dist/, as a user's project sees them),
// and `ts run` blocks run too.

/** Names a `fragment` may use without defining them, and `run` blocks are given. */
const PRELUDE = [
  'import type { RunningSendMock, SendRequest } from "sendmock";',
  "declare const mock: RunningSendMock;",
  "declare const id: string;",
  "declare const body: SendRequest;",
  "",
].join("\n");

let typeProblems: Map<string, string[]> | undefined;

function tsBlockFile(block: Block): string {
  return path.join(ROOT, "test-results", "docs-blocks", `${block.page.replace(/[/.]/g, "-")}-${block.line}.ts`);
}

/** One program for every TypeScript block: building it costs seconds, checking one more file little. */
function typeProblemsOf(block: Block): string[] {
  if (typeProblems === undefined) {
    const sources = new Map<string, { text: string; offset: number }>();
    for (const each of PAGES.flatMap(blocksOf).filter((candidate) => candidate.lang === "ts" && ["run", "fragment", "module"].includes(candidate.kind))) {
      const prelude = each.kind === "module" ? "" : PRELUDE;
      sources.set(tsBlockFile(each), { text: `${prelude}${each.code}${each.kind === "module" ? "" : "export {};\n"}`, offset: prelude.split("\n").length - 1 });
    }
    const config = ts.readConfigFile(path.join(ROOT, "tsconfig.json"), (file) => ts.sys.readFile(file));
    const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT);
    const compilerOptions: ts.CompilerOptions = {
      ...options,
      noEmit: true,
      declaration: false,
      sourceMap: false,
      noUnusedLocals: false,
      noUnusedParameters: false,
    };
    const host = ts.createCompilerHost(compilerOptions);
    const [getSourceFile, fileExists, read] = [host.getSourceFile.bind(host), host.fileExists.bind(host), host.readFile.bind(host)];
    host.fileExists = (file) => sources.has(file) || fileExists(file);
    host.readFile = (file) => sources.get(file)?.text ?? read(file);
    host.getSourceFile = (file, language, ...rest) => {
      const source = sources.get(file);
      return source ? ts.createSourceFile(file, source.text, language, true) : getSourceFile(file, language, ...rest);
    };
    const program = ts.createProgram([...sources.keys()], compilerOptions, host);
    typeProblems = new Map();
    for (const [file, { offset }] of sources) {
      const sourceFile = program.getSourceFile(file);
      const diagnostics = sourceFile ? ts.getPreEmitDiagnostics(program, sourceFile) : [];
      typeProblems.set(
        file,
        diagnostics.map((diagnostic) => {
          const at = diagnostic.file && diagnostic.start !== undefined ? diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start).line - offset + 1 : 0;
          return `line ${at} of the block: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n")}`;
        }),
      );
    }
  }
  return typeProblems.get(tsBlockFile(block)) ?? ["not typechecked"];
}

/** `expression; // value` asserts the value; other lines run as written, the docs' URL replaced by the mock's. */
function runnable(code: string): { imports: string; statements: string } {
  const lines = code.replace(new RegExp(`(["'\`])${DOCS_URL.replace(/[.]/g, "\\.")}\\1`, "g"), "mock.url").split("\n");
  const imports = lines.filter((line) => line.startsWith("import "));
  const statements = lines
    .filter((line) => !line.startsWith("import "))
    .map((line) => {
      const assertion = /^(?!(?:const|let|var|await|return) )(.+);\s*\/\/ ("[^"]*"|-?\d+(?:\.\d+)?|true|false|null)(?:\W.*)?$/.exec(line);
      return assertion ? `__expect(${assertion[1]}, ${assertion[2]}, ${JSON.stringify(line.trim())});` : line;
    });
  return { imports: imports.join("\n"), statements: statements.join("\n") };
}

/** A `ts run` block as a user's script: the package from dist/, a mock of its own, exit 1 on a broken assertion. */
async function runTs(block: Block): Promise<void> {
  const { imports, statements } = runnable(block.code);
  const source = [
    'import { startSendMock as __startSendMock } from "sendmock";',
    imports,
    "const mock = await __startSendMock({ port: 0 });",
    `const body = ${JSON.stringify(FIRST_SEND)};`,
    "const __failures: string[] = [];",
    "function __expect(actual: unknown, expected: unknown, line: string): void {",
    "  if (JSON.stringify(actual) !== JSON.stringify(expected)) __failures.push(`${line}: got ${JSON.stringify(actual)}`);",
    "}",
    "try {",
    statements,
    "} finally {",
    "  await mock.close();",
    "}",
    'if (__failures.length > 0) { console.error(__failures.join("\\n")); process.exitCode = 1; }',
  ].join("\n");
  const js = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText;
  const file = tsBlockFile(block).replace(/\.ts$/, ".mjs");
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, js);
  const result = await run(process.execPath, [file]);
  expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
}

/**
 * `ts examples/...`: the block is that file, word for word, and the file is one the example
 * suites run: the vitest ones by test/e2e/readme-examples.test.ts, the jest one by
 * test/e2e/package.test.ts in a default CommonJS jest project with the packed package.
 */
function checkExample(block: Block): void {
  const runBy = block.lang === "ts" ? /^examples\/vitest\/[\w-]+\.test\.ts$/ : /^examples\/jest\/[\w-]+\.test\.js$/;
  expect(block.kind, "an example the vitest or jest example suite runs").toMatch(runBy);
  expect(block.code).toBe(readFileSync(path.join(ROOT, block.kind), "utf8"));
}

// ---------------------------------------------------------------------------------------------
// YAML and JSON.

async function checkConfig(block: Block): Promise<void> {
  const file = path.join(await aFolder(), "sendmock.yaml");
  await writeFile(file, block.code);
  expect(() => resolveConfig({ config: file })).not.toThrow();
}

async function checkTemplate(block: Block): Promise<void> {
  const folder = await aFolder();
  await writeFile(path.join(folder, "welcome.yaml"), block.code);
  const catalog = await loadTemplateCatalog(folder, { watch: false });
  expect(catalog.list().map((entry) => entry.error)).toEqual([undefined]);
  const template = catalog.get("welcome");
  if (template === undefined) throw new Error("the template did not load");
  const rendered = renderTemplate(template, template.sampleData ?? {});
  expect(rendered.subject).not.toContain("{");
}

/** A GitHub Actions step list: each `run:` is a command of the docs, its variables pointing at local stand-ins. */
async function checkCiSteps(block: Block): Promise<void> {
  const steps = parseYaml(block.code) as { run?: string; uses?: string }[];
  expect(Array.isArray(steps)).toBe(true);
  const env = { STAGING_URL: (await theSpecService()).url, STAGING_KEY: DOCS_KEY };
  for (const step of steps) {
    expect(step.run ?? step.uses, "a step runs a command or uses an action").toBeDefined();
    if (step.run !== undefined)
      for (const line of step.run.split("\n").filter((text) => text.trim() !== "")) await checkCommand({ text: line, result: "", after: [] }, new Map(), env);
  }
}

/** Each JSON value of the block (jsonc: `//` lines between them), in order. */
function jsonValues(code: string): unknown[] {
  const values: unknown[] = [];
  let text = code
    .split("\n")
    .filter((line) => !line.trimStart().startsWith("//"))
    .join("\n")
    .trim();
  while (text !== "") {
    const { value, rest } = leadingJson(text);
    values.push(value);
    text = rest.trim();
  }
  return values;
}

/** `json <document> <Schema>[.<member>...]`: every value is valid against that schema of openapi/<document>. */
async function checkJsonSchema(block: Block): Promise<void> {
  const [document = "", schema = ""] = block.kind.split(/\s+/);
  const [name = "", ...members] = schema.split(".");
  const contract = await loadContract(path.join(ROOT, "openapi", document));
  const validate = compiledAtRunTime(contract, [componentPointer(name), ...members.map((member) => `properties/${member}`)].join("/"));
  const values = jsonValues(block.code);
  expect(values.length).toBeGreaterThan(0);
  for (const value of values) {
    validate(value);
    expect(validate.errors ?? [], JSON.stringify(value)).toEqual([]);
  }
}

// ---------------------------------------------------------------------------------------------
// What `sendmock serve` prints: the banner and the request log, for the configuration and the
// requests the docs show.

/** The configuration the docs' banner shows, and the folder layout it names (/app stands for the folder). */
const BANNER_CONFIG = [
  "rate_limit: { requests: 50, per_seconds: 10 }",
  "faults:",
  '  - { fault: server_error, status: 503, times: 3, match: { to: "*@down.example.com" } }',
  "  - { fault: latency, delay_ms: 200 }",
  "",
].join("\n");

async function checkBanner(block: Block): Promise<void> {
  const folder = await aFolder();
  cpSync(path.join(ROOT, "fixtures/templates"), path.join(folder, "email-templates"), { recursive: true });
  await writeFile(path.join(folder, "sendmock.yaml"), BANNER_CONFIG);
  const started = await listening(["serve", "--port", "0", "--templates", "email-templates", "--config", "sendmock.yaml"], { cwd: folder });
  try {
    const documented = block.code.trimEnd().split("\n");
    await vi.waitFor(() => expect(started.stdout().split("\n").length).toBeGreaterThan(documented.length));
    const port = new URL(started.url).port;
    const printed = started.stdout().replaceAll(folder, "/app").replaceAll(`127.0.0.1:${port}`, "127.0.0.1:4010").split("\n").slice(0, documented.length);
    expect(printed).toEqual(documented);
  } finally {
    await stopped(started);
  }
}

const LOG_LINE = /^\d\d:\d\d:\d\d\.\d{3} /;

function normalisedLogLine(line: string): string {
  return line
    .replace(LOG_LINE, "HH:MM:SS.mmm ")
    .replace(/msg_[0-9a-f-]{36}/, "msg_ID")
    .replace(/ [\d.]+ms$/, " Nms");
}

/** The send a log line records: its `to`, `template_id` and the key whose hint it shows. */
function sendOfLogLine(fields: { to: string; template_id: string; hint: string }): RequestInit {
  return {
    method: "POST",
    headers: { Authorization: `Bearer test-key-${fields.hint}`, "Content-Type": "application/json" },
    body: JSON.stringify({ ...FIRST_SEND, to: fields.to, template_id: fields.template_id }),
  };
}

/** The request log's example: the server_error rule of the banner's configuration, without its latency rule (which every line would name). */
const LOG_CONFIG = ["faults:", '  - { fault: server_error, status: 503, times: 3, match: { to: "*@down.example.com" } }', ""].join("\n");

async function checkTextLog(block: Block): Promise<void> {
  const folder = await aFolder();
  await writeFile(path.join(folder, "sendmock.yaml"), LOG_CONFIG);
  const started = await listening(["serve", "--port", "0", "--config", "sendmock.yaml"], { cwd: folder });
  try {
    await sendsLogged(started, block);
  } finally {
    await stopped(started);
  }
}

async function sendsLogged(started: CliRun & { url: string }, block: Block): Promise<void> {
  for (const line of block.code.trimEnd().split("\n")) {
    const fields = /to=(\S+) template_id=(\S+) .*key=…(\S+)/.exec(line);
    if (!fields) throw new Error(`not a request log line: ${line}`);
    const before = started
      .stdout()
      .split("\n")
      .filter((printed) => LOG_LINE.test(printed)).length;
    await fetch(`${started.url}/send`, sendOfLogLine({ to: fields[1] ?? "", template_id: fields[2] ?? "", hint: fields[3] ?? "" }));
    await vi.waitFor(() =>
      expect(
        started
          .stdout()
          .split("\n")
          .filter((printed) => LOG_LINE.test(printed)).length,
      ).toBe(before + 1),
    );
    const printed =
      started
        .stdout()
        .split("\n")
        .filter((printed) => LOG_LINE.test(printed))
        .at(-1) ?? "";
    expect(normalisedLogLine(printed)).toBe(normalisedLogLine(line));
  }
}

async function checkJsonLog(block: Block): Promise<void> {
  const [documented] = jsonValues(block.code) as Record<string, unknown>[];
  if (documented === undefined) throw new Error("no log line");
  const started = await listening(["serve", "--port", "0", "--log-format", "json"], { cwd: await aFolder() });
  try {
    const hint = String(documented.api_key_hint);
    await fetch(`${started.url}/send`, sendOfLogLine({ to: String(documented.to), template_id: String(documented.template_id), hint }));
    await vi.waitFor(() => expect(started.stdout()).toContain('"path":"/send"'));
    const printed = JSON.parse(
      started
        .stdout()
        .split("\n")
        .find((line) => line.includes('"path":"/send"')) ?? "",
    ) as Record<string, unknown>;
    expect(Object.keys(printed)).toEqual(Object.keys(documented));
    expect(differences({ ...documented, message_id: "msg_…" }, printed)).toEqual([]);
  } finally {
    await stopped(started);
  }
}

// ---------------------------------------------------------------------------------------------
// Start errors: each documented line, printed by a start that fails that way.

interface FailedStart {
  /** Files made in the folder the start runs in (/app in the docs). */
  files?: Record<string, string>;
  args: string[];
  env?: Record<string, string>;
  /** A port where nothing listens, for the line's 6379. */
  closedRedisPort?: boolean;
}

const bad = (yaml: string): FailedStart => ({ files: { "sendmock.yaml": yaml }, args: ["--port", "0", "--config", "sendmock.yaml"] });

/** How each documented start error comes about; a line not here has no way to be checked. */
const FAILED_STARTS: Record<string, FailedStart> = {
  "sendmock: config file /app/sendmock.yaml: capacity must be at least 1": bad("capacity: 0\n"),
  "sendmock: templates folder /app/email-templates does not exist": { args: ["--port", "0", "--templates", "email-templates"] },
  "sendmock: config file /app/sendmock.yaml: rate_limit.per_seconds is required": bad("rate_limit: { requests: 2 }\n"),
  "sendmock: config file /app/sendmock.yaml: rate_limit: unknown key per_second (did you mean per_seconds?)": bad(
    "rate_limit: { requests: 2, per_second: 1 }\n",
  ),
  "sendmock: config file /app/sendmock.yaml: rate_limit.requests must be at least 1": bad("rate_limit: { requests: 0, per_seconds: 1 }\n"),
  "sendmock: config file /app/sendmock.yaml: api_keys must list at least one key": bad("api_keys: []\n"),
  "sendmock: config file /app/sendmock.yaml: api_keys[0] must not be empty": bad('api_keys: [""]\n'),
  "sendmock: config file /app/sendmock.yaml: admin_token must be at least 8 characters": bad("admin_token: short\n"),
  "sendmock: config file /app/sendmock.yaml: seed must be a whole number": bad("seed: 1.5\n"),
  'sendmock: config file /app/sendmock.yaml: body_limit must be a size of at least 1B, such as "1mb" or "500kb"': bad('body_limit: "0b"\n'),
  "sendmock: config file /app/sendmock.yaml, line 3, column 1: Flow sequence in block collection must be sufficiently indented and end with a ]": bad(
    "port: 4010\nrate_limit: [\nstrict_data: true\n",
  ),
  "sendmock: command line: --redis-url must be a Redis URL such as redis://127.0.0.1:6379": { args: ["--port", "0", "--redis-url", "http://127.0.0.1:6379"] },
  "error: option '--port <port>' value 'abc' from env 'SENDMOCK_PORT' is invalid. must be a whole number from 0 to 65535": {
    args: [],
    env: { SENDMOCK_PORT: "abc" },
  },
  "sendmock: templates folder /app/nowhere does not exist (environment: SENDMOCK_TEMPLATES)": { args: ["--port", "0"], env: { SENDMOCK_TEMPLATES: "nowhere" } },
  "sendmock: redis store at redis://127.0.0.1:6379 is unreachable: connect ECONNREFUSED 127.0.0.1:6379": { args: ["--port", "0"], closedRedisPort: true },
  "sendmock: refusing to listen on 0.0.0.0 without admin_token: anyone who can reach it could read every captured email. Set admin_token, or use a loopback host such as 127.0.0.1":
    { args: ["--port", "0", "--host", "0.0.0.0"] },
};

async function printedStartError(failing: FailedStart): Promise<string> {
  const folder = await aFolder();
  for (const [name, text] of Object.entries(failing.files ?? {})) await writeFile(path.join(folder, name), text);
  const port = failing.closedRedisPort === true ? String(await aClosedPort()) : undefined;
  const args = port === undefined ? failing.args : [...failing.args, "--redis-url", `redis://127.0.0.1:${port}`];
  const started = runCli(["serve", ...args], children, { cwd: folder, env: failing.env ?? {} });
  const code = await started.exited;
  expect(code, started.stdout()).toBe(1);
  const printed = started.stderr().trim().replaceAll(folder, "/app");
  return port === undefined ? printed : printed.replaceAll(`127.0.0.1:${port}`, "127.0.0.1:6379");
}

/** Each start error of the block, with the lines its start prints after it: a line no failing start begins is not checkable. */
async function checkStartErrors(block: Block): Promise<void> {
  const lines = block.code.trimEnd().split("\n");
  const starts = lines.flatMap((line, at) => {
    const failing = FAILED_STARTS[line];
    return failing === undefined ? [] : [{ at, printed: printedStartError(failing) }];
  });
  expect(starts[0]?.at, `${lines[0]}: no failing start prints it (FAILED_STARTS)`).toBe(0);
  for (const [index, start] of starts.entries()) {
    const shown = lines.slice(start.at, starts[index + 1]?.at ?? lines.length);
    expect((await start.printed).split("\n"), `printed by the start that fails with: ${shown[0]}`).toEqual(shown);
  }
}

// ---------------------------------------------------------------------------------------------
// Other printed text.

/** The report `setupSendMock` throws or prints, for the request it names. */
async function checkReport(block: Block): Promise<void> {
  const [failLine = "", ...report] = block.code.trimEnd().split("\n");
  expect(failLine, "the test runner's own line").toMatch(/^FAIL {2}\S+ > .+$/);
  await mock.reset();
  const field = /^ {4}\/(\w+): /m.exec(block.code)?.[1] ?? "";
  await fetch(`${mock.url}/send`, { method: "POST", headers: sendHeaders(), body: JSON.stringify({ ...FIRST_SEND, [field]: 123 }) });
  await vi.waitFor(async () => expect((await mock.journal.list()).total).toBe(1));
  const breaks = contractBreaks((await mock.journal.list()).requests.toReversed());
  expect(report.join("\n")).toBe(`Error: ${describeContractBreaks(breaks)}`);
}

/** The lines `sendmock check` prints, by their form. */
const CHECK_LINES = [
  /^sendmock check https?:\/\/\S+\/send against the contract (published|sendmock) \(openapi\/[\w.]+\) \(API key …\w{1,4}, shape (a|b|any)\)$/,
  /^[✓✗?-] [\w ]+ … (\d{3}|-) .+$/,
  /^ {4}\/\S* .+$/,
  /^ {4}smallest failing request: \(.+\) POST \/send \{.*\}$/,
  /^ {4}curl -sS -i -X POST '\S+\/send' -H "Authorization: Bearer \$SENDMOCK_API_KEY" -H 'Content-Type: application\/json' --data-binary '.*'$/,
  /^\.\.\.$/,
  /^inconclusive: \d+ requests? without a judgeable answer: .+$/,
  /^\d+ passed, \d+ failed$/,
];

function checkCheckOutput(block: Block): void {
  const lines = block.code.trimEnd().split("\n");
  expect(lines.filter((line) => !CHECK_LINES.some((form) => form.test(line)))).toEqual([]);
}

function checkViolationsHeader(block: Block): void {
  for (const line of block.code.trimEnd().split("\n")) {
    expect(line).toMatch(/^X-Sendmock-Violations: \d+ violations?: [\x20-\x7e]+$/);
    expect(line.length - "X-Sendmock-Violations: ".length).toBeLessThanOrEqual(512);
  }
}

/** Every string and template literal of the bench's sources, as a pattern (`${...}` stands for any text), the length of its text and of its text before the first placeholder. */
function benchLiterals(): { pattern: RegExp; length: number; head: number }[] {
  const folder = path.join(ROOT, "test/bench");
  const sources = [folder, path.join(folder, "lib")].flatMap((dir) =>
    readdirSync(dir)
      .filter((name) => name.endsWith(".mjs"))
      .map((name) => path.join(dir, name)),
  );
  const literals: { pattern: RegExp; length: number; head: number }[] = [];
  for (const source of sources.map((file) => readFileSync(file, "utf8"))) {
    // The last character of code before this one: a slash after an operator or a bracket opens a regular expression.
    let previous = "";
    for (let at = 0; at < source.length; at += 1) {
      const char = source[at] ?? "";
      if (/\s/.test(char)) continue;
      const before = previous;
      previous = char;
      if (char === "/" && (source[at + 1] === "/" || source[at + 1] === "*")) {
        const lineComment = source[at + 1] === "/";
        const end = source.indexOf(lineComment ? "\n" : "*/", at + 2);
        if (end === -1) break;
        at = lineComment ? end : end + 1; // the loop's step then moves past the newline or the closing slash
        previous = before;
      } else if (char === "/" && /^$|[(,=:[!&|?{};]/.test(before)) {
        let inClass = false;
        for (at += 1; at < source.length && (source[at] !== "/" || inClass); at += 1) {
          if (source[at] === "\\") at += 1;
          else if (source[at] === "[") inClass = true;
          else if (source[at] === "]") inClass = false;
        }
      } else if (char === '"' || char === "'" || char === "`") {
        const parts: string[] = [];
        let text = "";
        let depth = 0;
        for (at += 1; at < source.length; at += 1) {
          const inner = source[at];
          if (depth > 0) {
            if (inner === "{") depth += 1;
            else if (inner === "}") depth -= 1;
            continue;
          }
          if (inner === "\\") text += source[++at] ?? "";
          else if (inner === char) break;
          else if (char === "`" && inner === "$" && source[at + 1] === "{") {
            parts.push(text);
            text = "";
            depth = 1;
            at += 1;
          } else text += inner ?? "";
        }
        parts.push(text);
        const length = parts.join("").trim().length;
        // A literal opening on a placeholder would match any line: it names none.
        const head = (parts[0] ?? "").trim().length;
        if (length >= 4 && head > 0)
          literals.push({
            pattern: new RegExp(`^${parts.map((part) => part.trim().replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("[\\s\\S]*?")}`),
            length,
            head,
          });
      }
    }
  }
  return literals;
}

/** Each line is one the bench prints: a table row of a scenario it runs, a target it judges, or a line it writes. */
function checkBenchOutput(block: Block): void {
  const literals = benchLiterals();
  // A literal names a line when it is the whole line, or a long enough start of it (a table cell or a target's name, then figures).
  const known = (text: string): boolean =>
    literals.some(({ pattern, length, head }) => {
      const match = pattern.exec(text);
      return match !== null && (match[0].length === text.length || (head >= 3 && length >= 12));
    });
  // The servers the table names, by their rows' labels without the body they were sent.
  const labels = new Set(
    block.code
      .split("\n")
      .filter((line) => line.includes("|"))
      .map((line) =>
        line
          .slice(0, line.indexOf("|"))
          .trim()
          .replace(/ \((?:valid|invalid[^)]*)\)$/, "")
          .replace(/^sendmock .*/, "sendmock POST /send"),
      ),
  );
  const unknown = block.code
    .trimEnd()
    .split("\n")
    .filter((line) => {
      const text = line.trim();
      if (text === "" || /^[-| ]+$/.test(text)) return false;
      if (text.includes("|")) {
        const cell = text.slice(0, text.indexOf("|")).trim();
        return !/^\d+$/.test(cell) && !known(cell);
      }
      // A target's name is padded, and its detail follows: the name's pattern must match from the start.
      const target = /^(?:PASS|MISS|UNJUDGED) +(.+)$/.exec(text);
      if (target) return !known(target[1] ?? "");
      // The responses list: a server's padded label (a table row's), then what it responded to each body.
      const responded = /^(?:(.+?) {2,})?(?:valid|invalid) \d{3} /.exec(text);
      if (responded) return responded[1] !== undefined && !labels.has(responded[1]);
      return !known(text);
    });
  expect(unknown, "lines the bench does not print").toEqual([]);
}

/** Each path the layout names exists: top-level entries at column 0, their children indented by 2. */
function checkTree(block: Block): void {
  let parent = "";
  const missing: string[] = [];
  for (const line of block.code.split("\n")) {
    const entry = /^( {0,2})(\S+)/.exec(line);
    if (!entry) continue;
    const name = entry[2] ?? "";
    const file = entry[1] === "" ? name : path.join(parent, name);
    if (entry[1] === "") parent = name;
    if (!existsSync(path.join(ROOT, file))) missing.push(file);
  }
  expect(missing).toEqual([]);
}

// ---------------------------------------------------------------------------------------------
// Which check each block gets, by its info string.

type Check = (block: Block) => Promise<void> | void;

function checkOf(block: Block): Check | undefined {
  const { lang, kind } = block;
  if (lang === "sh") return kind === "" ? checkShBlock : kind === "synopsis" ? checkSynopsis : undefined;
  if ((lang === "ts" || lang === "js") && kind.startsWith("examples/")) return checkExample;
  if (lang === "ts" && kind === "run")
    return async (each) => {
      expect(typeProblemsOf(each)).toEqual([]);
      await runTs(each);
    };
  if (lang === "ts" && (kind === "fragment" || kind === "module")) return (each) => expect(typeProblemsOf(each)).toEqual([]);
  if (lang === "yaml") return { config: checkConfig, template: checkTemplate, ci: checkCiSteps }[kind];
  if ((lang === "json" || lang === "jsonc") && /^\S+\.yaml \S+$/.test(kind)) return checkJsonSchema;
  if (lang === "json" && kind === "log") return checkJsonLog;
  if (lang === "text") {
    return {
      banner: checkBanner,
      log: checkTextLog,
      "start-errors": checkStartErrors,
      report: checkReport,
      check: checkCheckOutput,
      header: checkViolationsHeader,
      bench: checkBenchOutput,
      tree: checkTree,
    }[kind];
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Links: every relative link names a file that exists, and an anchor that is one of its headings.

/** GitHub's anchor of a heading. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/ /g, "-");
}

function anchorsOf(file: string): Set<string> {
  const text = readFileSync(file, "utf8").replace(/^```[\s\S]*?^```$/gm, "");
  return new Set([...text.matchAll(/^#+ (.+)$/gm)].map((match) => anchorOf(match[1] ?? "")));
}

function brokenLinks(page: string): string[] {
  const text = readFileSync(path.join(ROOT, page), "utf8").replace(/^```[\s\S]*?^```$/gm, "");
  const broken: string[] = [];
  for (const match of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    const link = match[1] ?? "";
    if (/^[a-z]+:/.test(link)) continue;
    const [target = "", anchor] = link.split("#");
    const file = target === "" ? path.join(ROOT, page) : path.join(ROOT, path.dirname(page), target);
    if (!existsSync(file)) broken.push(`${link}: no such file`);
    else if (anchor !== undefined && file.endsWith(".md") && !anchorsOf(file).has(anchor)) broken.push(`${link}: no such heading`);
  }
  return broken;
}

// ---------------------------------------------------------------------------------------------
// The one table of faults: each row's effect, by each way in it names.

/** The values the table's S, R and D stand for, and what its `{...}` and B stand for in a respond rule. */
const TABLE_VALUES: Record<string, string> = { S: "503", R: "7", D: "50", "{...}": '{"X-Note": "from the table"}', B: '"a custom answer"' };

interface FaultRow {
  fault: string;
  effect: string;
  header: string;
  recipient: string;
  rule: string;
}

function faultRows(): FaultRow[] {
  const text = readFileSync(path.join(ROOT, "docs/errors-and-faults.md"), "utf8");
  const table = text.slice(text.indexOf("| fault | effect | by request header | by magic recipient | by rule |"));
  return table
    .split("\n")
    .slice(2)
    .filter((line) => line.startsWith("| `"))
    .map((line) => {
      const [fault = "", effect = "", header = "", recipient = "", rule = ""] = line.slice(2, -2).split(" | ");
      return { fault: fault.replaceAll("`", ""), effect, header, recipient, rule };
    });
}

/** The S, R and D a cell uses, replaced by their values. */
function withValues(cell: string): { text: string; uses: Set<string> } {
  const uses = new Set<string>();
  const text = cell.replace(/\{\.\.\.\}|\b[SRDB]\b/g, (name) => {
    uses.add(name);
    return TABLE_VALUES[name] ?? name;
  });
  return { text, uses };
}

interface Responded {
  status?: number;
  headers?: Headers;
  body?: string;
  ms: number;
}

async function sendTo(headers: Record<string, string>, to = FIRST_SEND.to): Promise<Responded> {
  const started = performance.now();
  try {
    const response = await fetch(`${mock.url}/send`, {
      method: "POST",
      headers: { ...sendHeaders(), ...headers },
      body: JSON.stringify({ ...FIRST_SEND, to }),
    });
    return { status: response.status, headers: response.headers, body: await response.text(), ms: performance.now() - started };
  } catch {
    return { ms: performance.now() - started }; // the connection closed with no response
  }
}

/** What the row's effect says happens, held against one response; `uses` are the values the way in gave. */
async function expectEffect(row: FaultRow, responded: Responded, uses: Set<string>, capturedBefore: number, way: string): Promise<void> {
  const where = `${row.fault} ${way}: ${JSON.stringify({ status: responded.status, body: responded.body?.slice(0, 200) })}`;
  const error = /^(\d{3}|S) `(\w+)`/.exec(row.effect);
  if (error) {
    expect(responded.status, where).toBe(Number(error[1] === "S" ? TABLE_VALUES.S : error[1]));
    expect(responded.headers?.get("x-sendmock-error-code"), where).toBe(error[2]);
    // "with `Retry-After: R` (default 1)" always has one; "with R, also `Retry-After: R`" only when R is given.
    const optional = row.effect.includes("with R, also `Retry-After: R`");
    if (uses.has("R")) expect(responded.headers?.get("retry-after"), where).toBe(TABLE_VALUES.R);
    else if (row.effect.includes("`Retry-After: R`")) expect(responded.headers?.get("retry-after"), where).toBe(optional ? null : "1");
  } else if (row.effect.startsWith("waits D ms")) {
    expect(responded.status, where).toBe(200);
    expect(responded.ms, where).toBeGreaterThanOrEqual(Number(TABLE_VALUES.D) - 5);
  } else if (row.effect.startsWith("no response")) {
    expect(responded.status, where).toBeUndefined();
    if (row.effect.includes("for D ms")) expect(responded.ms, where).toBeGreaterThanOrEqual(Number(TABLE_VALUES.D) - 5);
    const captured = (await mock.outbox.list()).total - capturedBefore;
    expect(captured, where).toBe(row.effect.includes("the message is captured") ? 1 : 0);
  } else if (row.effect.startsWith("200 with a body that is not valid JSON")) {
    expect(responded.status, where).toBe(200);
    expect(() => JSON.parse(responded.body ?? "") as unknown, where).toThrow();
  } else if (row.effect.startsWith("the rule's `status`, `headers` and `body`")) {
    expect(responded.status, where).toBe(Number(TABLE_VALUES.S));
    expect(responded.headers?.get("x-note"), where).toBe("from the table");
    expect(responded.body, where).toBe("a custom answer");
  } else {
    throw new Error(`${row.fault}: no way to check the effect "${row.effect}"`);
  }
}

async function checkFaultRow(row: FaultRow): Promise<void> {
  const refused = (cell: string): boolean => cell.startsWith("no: 400 `invalid_request`");
  // By request header: every `Name: value` of the cell.
  await mock.reset();
  const header = withValues(row.header);
  const headers = Object.fromEntries([...header.text.matchAll(/`([\w-]+): ([^`]+)`/g)].map((match) => [match[1] ?? "", match[2] ?? ""]));
  if (refused(row.header)) headers["X-Sendmock-Fault"] = row.fault;
  let before = (await mock.outbox.list()).total;
  const byHeader = await sendTo(headers);
  if (refused(row.header))
    expect([byHeader.status, byHeader.headers?.get("x-sendmock-error-code")], `${row.fault} by header`).toEqual([400, "invalid_request"]);
  else await expectEffect(row, byHeader, header.uses, before, "by header");
  // By magic recipient: each address of the cell.
  const addresses = refused(row.recipient)
    ? [`${row.fault}@fault.sendmock.test`]
    : [...row.recipient.matchAll(/`([^`]+@fault\.sendmock\.test)`/g)].map((match) => match[1] ?? "");
  expect(addresses.length, `${row.fault}: its magic recipients`).toBeGreaterThan(0);
  for (const address of addresses) {
    await mock.reset();
    const recipient = withValues(address);
    before = (await mock.outbox.list()).total;
    const byRecipient = await sendTo({}, recipient.text);
    if (refused(row.recipient))
      expect([byRecipient.status, byRecipient.headers?.get("x-sendmock-error-code")], `${row.fault} by ${address}`).toEqual([400, "invalid_request"]);
    else await expectEffect(row, byRecipient, recipient.uses, before, `by ${address}`);
  }
  // By rule: the cell's JSON, once.
  await mock.reset();
  const rule = withValues(/`(\{.*\})`/.exec(row.rule)?.[1] ?? "");
  const added = await fetch(`${mock.url}/_mock/faults`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ ...(JSON.parse(rule.text) as object), times: 1 }),
  });
  expect(added.status, `${row.fault} rule ${rule.text}: ${await added.clone().text()}`).toBe(201);
  before = (await mock.outbox.list()).total;
  await expectEffect(row, await sendTo({}), rule.uses, before, "by rule");
}

describe("docs/errors-and-faults.md, its table of faults", () => {
  it("has a row for every fault kind sendmock knows", async () => {
    const contract = await loadContract(path.join(ROOT, "openapi/admin.yaml"));
    const schema: unknown = contract.document.components?.schemas?.FaultKind;
    const kinds = (schema as { enum?: string[] } | undefined)?.enum ?? [];
    expect(
      faultRows()
        .map((row) => row.fault)
        .sort(),
    ).toEqual([...kinds].sort());
  });

  for (const row of faultRows()) {
    it(`does what its ${row.fault} row says, by header, by magic recipient and by rule`, () => checkFaultRow(row), SLOW.timeout);
  }
});

// ---------------------------------------------------------------------------------------------

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
