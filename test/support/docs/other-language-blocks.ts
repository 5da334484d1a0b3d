// The blocks of docs/other-languages.md that are not sendmock's own commands: Python run against the docs' mock, a pytest
// file run with the plugin, and the container blocks (docker run, Testcontainers) held to the image and the settings,
// since no container can start where the suite runs.

import { readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { expect } from "vitest";
import { settingsFromEnvironment } from "../../../src/config/environment.js";
import { DECLARED_SETTINGS } from "../../../src/config/schema.js";
import { environmentVariableOf } from "../../../src/config/environment.js";
import { ROOT } from "../cli-process.js";
import { PYTHON, PYTHON_CLIENT_SOURCES, pythonMissing } from "../python.js";
import { DOCS_URL, type Block } from "./pages.js";
import { run, type DocsRig } from "./rig.js";
import { commandsOf, shellWords } from "./shell.js";

const VERSION = (JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as { version: string }).version;
/** The image `npm run build:image` builds. */
const IMAGE = `sendmock:${VERSION}`;
/** What the Containerfile sets: the port inside the container, and where templates are read. */
const CONTAINER_PORT = "4010";
const TEMPLATES_MOUNT = "/templates";
const KNOWN_VARIABLES = new Set(DECLARED_SETTINGS.map(([key]) => environmentVariableOf(key)));

/** A variable the image reads, with a value its start would take. */
function expectSetting(name: string, value: string, where: string): void {
  expect(KNOWN_VARIABLES.has(name), `${where}: ${name} is no setting's variable`).toBe(true);
  expect(() => settingsFromEnvironment({ [name]: value }), `${where}: ${name}=${value}`).not.toThrow();
}

/** `docker run …`: the image built, its port published on loopback, templates mounted where the image reads them, known settings. */
export function checkImageBlock(block: Block): void {
  const commands = commandsOf(block.code);
  expect(commands.length, "an image block with no command").toBeGreaterThan(0);
  for (const command of commands) {
    const words = shellWords(command.text, { PWD: "/app" }).words;
    expect(words.slice(0, 2), command.text).toEqual(["docker", "run"]);
    expect(words.at(-1), `${command.text}: the image npm run build:image builds`).toBe(IMAGE);
    for (let at = 2; at < words.length - 1; at += 1) {
      const [flag, value = ""] = [words[at], words[at + 1]];
      if (flag === "-p")
        expect(value, `${command.text}: published on the host's loopback, to the port the image listens on`).toBe(
          `127.0.0.1:${CONTAINER_PORT}:${CONTAINER_PORT}`,
        );
      if (flag === "-v") expect(value.split(":")[1], `${command.text}: templates mounted where the image reads them`).toBe(TEMPLATES_MOUNT);
      if (flag === "-e") {
        const [name = "", ...rest] = value.split("=");
        expectSetting(name, rest.join("="), command.text);
      }
    }
  }
}

/** A Testcontainers block of any language: the image, its port, a wait on its health or its banner, and known settings. */
export function checkTestcontainersBlock(block: Block): void {
  expect(block.code, "the image npm run build:image builds").toContain(`"${IMAGE}"`);
  expect(block.code, "the port the image listens on").toContain(CONTAINER_PORT);
  expect(/\/_mock\/health|listening on/.test(block.code), "a wait on the health call or the banner").toBe(true);
  for (const match of block.code.matchAll(/"?(SENDMOCK_\w+)"?\s*[,:]\s*"([^"]*)"/g)) expectSetting(match[1] ?? "", match[2] ?? "", block.code);
}

/** Runs Python code with Debian's python3 and the client's sources, against the docs' mock; skipped (saying why) without Python outside CI. */
async function runPython(args: string[], rig: DocsRig, cwd: string): Promise<{ code: number | null; output: string }> {
  const result = await run(PYTHON, args, {
    cwd,
    env: { PYTHONPATH: PYTHON_CLIENT_SOURCES, SENDMOCK_URL: rig.mock.url, PYTHONDONTWRITEBYTECODE: "1" },
    timeoutMs: 50_000,
  });
  return { code: result.code, output: `${result.stdout}\n${result.stderr}` };
}

/** A `python run` block: a script whose asserts hold against the mock at the docs' URL. */
export async function checkPythonRun(block: Block, rig: DocsRig): Promise<void> {
  if (pythonMissing() !== undefined) return;
  await rig.mock.reset();
  const folder = await rig.aFolder();
  const script = path.join(folder, "example.py");
  await writeFile(script, block.code.replaceAll(DOCS_URL, rig.mock.url));
  const result = await runPython([script], rig, folder);
  expect(result.code, result.output).toBe(0);
}

/** A `python pytest` block: a test file run by pytest with the plugin, on the docs' mock, every test passing. */
export async function checkPytestFile(block: Block, rig: DocsRig): Promise<void> {
  if (pythonMissing() !== undefined) return;
  const folder = await rig.aFolder();
  const name = /^# (test_\w+\.py)/.exec(block.code)?.[1] ?? "test_docs.py";
  await writeFile(path.join(folder, name), block.code);
  const tests = [...block.code.matchAll(/^def test_/gm)].length;
  const result = await runPython(["-m", "pytest", "-p", "sendmock.pytest_plugin", "-p", "no:cacheprovider", "-q", name], rig, folder);
  expect(result.code, result.output).toBe(0);
  expect(result.output).toContain(`${tests} passed`);
}
