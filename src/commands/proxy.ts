// `sendmock proxy`: the same surface as serve, but POST /send relayed to the real service and checked against the contract.

import path from "node:path";
import { type Command, InvalidArgumentError } from "commander";
import type { SendMockOptions } from "../config/resolve.js";
import { isHttpUrl } from "../domain/addresses.js";
import { DEFAULT_CONTRACT } from "../contract/choice.js";
import { DEFAULT_MAX_BODY_BYTES, MAX_MAX_BODY_BYTES } from "../bounded-response.js";
import { bannerOf } from "./banner.js";
import { createCommandLog } from "./log.js";
import { addMockFlags, closeOnSignals, fail, logDetailOf, optionsFromFlags, startMockOrFail, type ServeFlags } from "./shared.js";

function parseTarget(value: string): string {
  if (!isHttpUrl(value)) throw new InvalidArgumentError("must be an http or https URL, such as https://api.example.com/v1");
  return value;
}

function parseMaxBodyBytes(value: string): number {
  const bytes = Number(value);
  if (!/^\d+$/.test(value) || bytes < 1 || bytes > MAX_MAX_BODY_BYTES)
    throw new InvalidArgumentError(`must be a whole number of bytes, 1 to ${MAX_MAX_BODY_BYTES}`);
  return bytes;
}

interface ProxyFlags extends ServeFlags {
  target: string;
  strict?: boolean;
  contract: string;
  maxBodyBytes: number;
}

async function proxy(flags: ProxyFlags, command: Command): Promise<void> {
  // A contract file that cannot be used is a usage error, as for `check`; the mock then finds it loaded.
  const { chooseContract } = await import("../contract/choice.js");
  const contract = await chooseContract(flags.contract).catch((error: unknown) =>
    fail(`--contract: ${error instanceof Error ? error.message : String(error)}`, 2),
  );
  const log = createCommandLog({ format: flags.logFormat, detail: logDetailOf(flags), bufferBytes: flags.logBuffer });
  const options: SendMockOptions = {
    ...optionsFromFlags(flags, log),
    proxy: { target: flags.target, strict: flags.strict ?? false, contract: flags.contract, maxBodyBytes: flags.maxBodyBytes },
  };
  const mock = await startMockOrFail(options, command);
  closeOnSignals(mock, log);
  log.banner(
    await bannerOf(mock, {
      name: "sendmock proxy",
      send: `POST ${mock.url}/send -> ${mock.config.proxy?.target ?? ""}/send, checked against the contract ${contract.label}${flags.strict === true ? " (strict)" : ""}`,
      inspect: `${mock.url}/_mock/requests`,
      configFile: flags.config === undefined ? undefined : path.resolve(flags.config),
      rulesApply: false,
    }),
  );
}

export function registerProxy(program: Command): void {
  const command = program
    .command("proxy")
    .description("relay POST /send to the real service, checking both directions against the contract")
    .requiredOption("--target <url>", "base URL of the real service; requests go to <url>/send", parseTarget)
    .option("--strict", "answer 502 contract_violation when the service's answer breaks the contract")
    .option(
      "--contract <contract>",
      "what both directions are judged by: published (openapi/service.yaml, what the service's spec publishes), sendmock (openapi/send.yaml) or an OpenAPI 3.x file with POST /send",
      DEFAULT_CONTRACT,
    )
    .option(
      "--max-body-bytes <n>",
      "the most of the service's response body read, in bytes once decompressed; a longer one is answered 502 and its connection dropped",
      parseMaxBodyBytes,
      DEFAULT_MAX_BODY_BYTES,
    );
  addMockFlags(command, {
    templates: "folder of templates used to render captured messages (default: the shipped fixtures/templates)",
    response_shape: "response shape of the proxy's own errors",
  }).action(proxy);
}
