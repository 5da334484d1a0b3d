// `sendmock proxy`: the same surface as serve, but POST /send relayed to the real service and checked against the contract.

import { type Command, InvalidArgumentError, Option } from "commander";
import type { SendMockOptions } from "../config.js";
import { isHttpUrl } from "../domain/addresses.js";
import { startSendMock } from "../mock.js";
import { closeOnSignals, describeStartError, fail, optionsFromFlags, parsePort, type ServeFlags } from "./serve.js";

function parseTarget(value: string): string {
  if (!isHttpUrl(value)) throw new InvalidArgumentError("must be an http or https URL, such as https://api.example.com/v1");
  return value;
}

interface ProxyFlags extends ServeFlags {
  target: string;
  strict?: boolean;
}

async function proxy(flags: ProxyFlags): Promise<void> {
  const options: SendMockOptions = { ...optionsFromFlags(flags), proxy: { target: flags.target, strict: flags.strict ?? false } };
  const mock = await startSendMock(options, "command line").catch((error: unknown) => fail(describeStartError(error)));
  closeOnSignals(mock);
  process.stdout.write(
    `sendmock proxy listening on ${mock.url}\n` +
      `  send:      POST ${mock.url}/send -> ${mock.config.proxy?.target ?? ""}/send${flags.strict === true ? " (strict)" : ""}\n` +
      `  inspect:   ${mock.url}/_mock/requests\n`,
  );
}

export function registerProxy(program: Command): void {
  program
    .command("proxy")
    .description("relay POST /send to the real service, checking both directions against the contract")
    .requiredOption("--target <url>", "base URL of the real service; requests go to <url>/send", parseTarget)
    .option("--strict", "answer 502 contract_violation when the service's answer breaks the contract")
    .option("--port <port>", "port to listen on (0 picks a free one; default 4010)", parsePort)
    .option("--host <host>", "address to bind (default 127.0.0.1)")
    .option("--templates <dir>", "folder of templates used to render captured messages (default: the shipped fixtures/templates)")
    .option("--config <file>", "JSON or YAML config file; flags win over it")
    .addOption(new Option("--shape <shape>", "response shape of the proxy's own errors").choices(["a", "b"]))
    .action(proxy);
}
