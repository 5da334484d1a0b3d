// `sendmock serve`: flags -> config -> a listening mock, its URL printed, drained on SIGTERM/SIGINT.

import { type Command, Option } from "commander";
import { startSendMock } from "../mock.js";
import { addMockFlags, closeOnSignals, describeStartError, fail, optionsFromFlags, type ServeFlags } from "./shared.js";

async function serve(flags: ServeFlags): Promise<void> {
  const options = optionsFromFlags(flags);
  const mock = await startSendMock(options, "command line").catch((error: unknown) => fail(describeStartError(error)));
  // Ready for a signal before anyone can read the URL and send one.
  closeOnSignals(mock);

  const templates = mock.templates.list();
  const broken = templates.filter((entry) => entry.error !== undefined).length;
  process.stdout.write(
    `sendmock listening on ${mock.url}\n` +
      `  send:      POST ${mock.url}/send\n` +
      `  inspect:   ${mock.url}/_mock/messages\n` +
      `  templates: ${templates.length - broken} loaded${broken > 0 ? `, ${broken} broken` : ""} from ${mock.config.templates}\n`,
  );
}

export function registerServe(program: Command): void {
  addMockFlags(program.command("serve").description("serve the mock send API, the inspection API and the inbox"), {
    templates: "folder of templates (default: the shipped fixtures/templates)",
    shape: "response shape of the send API",
  })
    .addOption(
      new Option("--store <kind>", "where messages, journal, faults and rate limits live (default memory; redis when a Redis URL is given)").choices([
        "memory",
        "redis",
      ]),
    )
    .addOption(new Option("--redis-url <url>", "Redis shared by several replicas, e.g. redis://127.0.0.1:6379").env("SENDMOCK_REDIS_URL"))
    .option("--key-prefix <prefix>", "prefix of every Redis key, so environments can share one Redis (default sendmock:)")
    .action(serve);
}
