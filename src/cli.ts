#!/usr/bin/env node
// argv -> the subcommand that handles it. Nothing imports this file.

import { Command } from "commander";
import { registerServe } from "./commands/serve.js";
import { registerCheck } from "./commands/check.js";
import { registerProxy } from "./commands/proxy.js";

const program = new Command()
  .name("sendmock")
  .description("Local mock and contract-test server for a transactional-email send API")
  .showHelpAfterError("(sendmock <command> --help lists the flags)")
  .configureOutput({ outputError: (text, write) => write(text) });

registerServe(program);
registerCheck(program);
registerProxy(program);

await program.parseAsync(process.argv);
