// The docs' TypeScript blocks: typechecked against the package's types (dist/, as a user's project sees them), `ts run` blocks run too, and `ts examples/...` held to the example files.

import { readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import ts from "typescript";
import { expect } from "vitest";
import { ROOT } from "../cli-process.js";
import { blocksOf, DOCS_URL, FIRST_SEND, PAGES, type Block } from "./pages.js";
import { run, type DocsRig } from "./rig.js";

/** Names a `fragment` may use without defining them, and `run` blocks are given. */
const PRELUDE = [
  'import type { RunningSendMock, SendRequest } from "sendmock";',
  "declare const mock: RunningSendMock;",
  "declare const id: string;",
  "declare const body: SendRequest;",
  "",
].join("\n");

function tsBlockFile(block: Block): string {
  return path.join(ROOT, "test-results", "docs-blocks", `${block.page.replace(/[/.]/g, "-")}-${block.line}.ts`);
}

/** One program for every TypeScript block: building it costs seconds, checking one more file little. */
export function typeProblemsOf(block: Block, rig: DocsRig): string[] {
  if (rig.typeProblems === undefined) {
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
    rig.typeProblems = new Map();
    for (const [file, { offset }] of sources) {
      const sourceFile = program.getSourceFile(file);
      const diagnostics = sourceFile ? ts.getPreEmitDiagnostics(program, sourceFile) : [];
      rig.typeProblems.set(
        file,
        diagnostics.map((diagnostic) => {
          const at = diagnostic.file && diagnostic.start !== undefined ? diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start).line - offset + 1 : 0;
          return `line ${at} of the block: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n")}`;
        }),
      );
    }
  }
  return rig.typeProblems.get(tsBlockFile(block)) ?? ["not typechecked"];
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
export async function runTs(block: Block): Promise<void> {
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
 * test/e2e/package.test.ts in a default CommonJS jest project with the packed package; and the
 * one-server-per-run example's config and test file (examples/sandbox-per-file/), by
 * test/e2e/package.test.ts in its vitest and jest projects.
 */
export function checkExample(block: Block): void {
  const runBy =
    block.lang === "ts"
      ? /^examples\/(vitest\/[\w-]+\.test|sandbox-per-file\/vitest\/(vitest\.config|[\w-]+\.test))\.ts$/
      : /^examples\/(jest\/[\w-]+\.test|sandbox-per-file\/jest\/(jest\.config|[\w-]+\.test))\.js$/;
  expect(block.kind, "an example the vitest or jest example suite runs").toMatch(runBy);
  expect(block.code).toBe(readFileSync(path.join(ROOT, block.kind), "utf8"));
}
