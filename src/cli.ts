#!/usr/bin/env node
// argv -> the subcommand that handles it. Nothing imports this file.

import { readFileSync } from "node:fs";
import { Command } from "commander";
import { packagePath } from "./package-root.js";
import { registerServe } from "./commands/serve.js";
import { registerCheck } from "./commands/check.js";
import { registerProxy } from "./commands/proxy.js";
import { registerLint } from "./commands/lint.js";

/** Read when asked, at run time: package.json sits outside the build's rootDir. */
function packageVersion(): string {
  return (JSON.parse(readFileSync(packagePath("package.json"), "utf8")) as { version: string }).version;
}

const program = new Command()
  .name("sendmock")
  .description("Local mock and contract-test server for a transactional-email send API")
  .showHelpAfterError("(sendmock <command> --help lists the flags)")
  .configureOutput({ outputError: (text, write) => write(text) })
  .option("-V, --version", "print the version of sendmock")
  .on("option:version", () => {
    process.stdout.write(`${packageVersion()}\n`);
    process.exit(0);
  });

registerServe(program);
registerCheck(program);
registerProxy(program);
registerLint(program);

// Not awaited at the top level: the single executable's bundle is CommonJS, which has no top-level await. A
// rejection still ends the process, as an unhandled one.
void program.parseAsync(process.argv);
