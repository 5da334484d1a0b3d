// `sendmock serve`: flags (or the environment) -> config -> a listening mock, its banner printed, each request logged, drained on SIGTERM/SIGINT.

import path from "node:path";
import type { Command } from "commander";
import { bannerOf } from "./banner.js";
import { createCommandLog } from "./log.js";
import { addMockFlags, addServeFlags, closeOnSignals, logDetailOf, optionsFromFlags, startMockOrFail, type ServeFlags } from "./shared.js";

async function serve(flags: ServeFlags, command: Command): Promise<void> {
  const log = createCommandLog({ format: flags.logFormat, detail: logDetailOf(flags), bufferBytes: flags.logBuffer });
  const mock = await startMockOrFail(optionsFromFlags(flags, log), command);
  // Ready for a signal before anyone can read the URL and send one.
  closeOnSignals(mock, log, { stopWithParent: flags.stopWithParent });
  log.banner(
    await bannerOf(mock, {
      name: "sendmock",
      send: `POST ${mock.url}/send`,
      inspect: `${mock.url}/_mock/messages`,
      configFile: flags.config === undefined ? undefined : path.resolve(flags.config),
      rulesApply: true,
    }),
  );
}

export function registerServe(program: Command): void {
  const command = program.command("serve").description("serve the mock send API, the inspection API and the inbox");
  addServeFlags(
    addMockFlags(command, {
      templates: "folder of templates (default: the shipped fixtures/templates)",
      response_shape: "response shape of the send API",
    }),
  ).action(serve);
}
