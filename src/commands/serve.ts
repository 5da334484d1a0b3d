// `sendmock serve`: flags -> config -> a listening mock, its URL printed, drained on SIGTERM/SIGINT.

import { type Command, InvalidArgumentError, Option } from "commander";
import { ConfigError, type SendMockOptions } from "../config.js";
import { ContractError } from "../contract/load.js";
import { StoreUnavailableError } from "../domain/store-errors.js";
import { TemplateFolderError } from "../domain/templates.js";
import { startSendMock } from "../mock.js";

export function parsePort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535) throw new InvalidArgumentError("must be a whole number from 0 to 65535");
  return port;
}

export function fail(message: string, exitCode = 1): never {
  process.stderr.write(`sendmock: ${message}\n`);
  process.exit(exitCode);
}

export function describeStartError(error: unknown): string {
  if (error instanceof ConfigError || error instanceof ContractError || error instanceof TemplateFolderError || error instanceof StoreUnavailableError) return error.message;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === "EADDRINUSE") return `cannot listen: the address is already in use (${(error as Error).message})`;
  if (code === "EACCES" || code === "EADDRNOTAVAIL") return `cannot listen: ${(error as Error).message}`;
  return `cannot start: ${error instanceof Error ? error.message : String(error)}`;
}

/**
 * SIGINT/SIGTERM: stop accepting, finish in-flight requests, exit 0. The mock cuts connections
 * still open after shutdown_grace_ms; the exit that follows it here also covers a store that
 * does not answer its goodbye.
 */
export function closeOnSignals(server: { close(): Promise<void>; config: { shutdownGraceMs: number } }): void {
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    const graceMs = server.config.shutdownGraceMs;
    process.stderr.write(`sendmock: ${signal} received, finishing in-flight requests (at most ${graceMs} ms, shutdown_grace_ms)\n`);
    setTimeout(() => {
      process.stderr.write(`sendmock: shutdown_grace_ms (${graceMs} ms) passed, exiting\n`);
      process.exit(0);
    }, graceMs + 250).unref();
    server.close().then(
      () => process.exit(0),
      (error: unknown) => fail(`error while stopping: ${String(error)}`),
    );
  };
  process.once("SIGINT", () => stop("SIGINT"));
  process.once("SIGTERM", () => stop("SIGTERM"));
}

export interface ServeFlags {
  port?: number;
  host?: string;
  templates?: string;
  config?: string;
  shape?: "a" | "b";
  store?: "memory" | "redis";
  redisUrl?: string;
  keyPrefix?: string;
}

/** The flags `serve` and `proxy` share, as the options of a mock that logs to stderr. */
export function optionsFromFlags(flags: ServeFlags): SendMockOptions {
  return {
    port: flags.port,
    host: flags.host,
    templates: flags.templates,
    config: flags.config,
    responseShape: flags.shape,
    store: flags.store,
    redisUrl: flags.redisUrl,
    keyPrefix: flags.keyPrefix,
    log: (line) => process.stderr.write(`${line}\n`),
  };
}

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
  program
    .command("serve")
    .description("serve the mock send API, the inspection API and the inbox")
    .option("--port <port>", "port to listen on (0 picks a free one; default 4010)", parsePort)
    .option("--host <host>", "address to bind (default 127.0.0.1)")
    .option("--templates <dir>", "folder of templates (default: the shipped fixtures/templates)")
    .option("--config <file>", "JSON or YAML config file; flags win over it")
    .addOption(new Option("--shape <shape>", "response shape of the send API").choices(["a", "b"]))
    .addOption(new Option("--store <kind>", "where messages, journal, faults and rate limits live (default memory; redis when a Redis URL is given)").choices(["memory", "redis"]))
    .addOption(new Option("--redis-url <url>", "Redis shared by several replicas, e.g. redis://127.0.0.1:6379").env("SENDMOCK_REDIS_URL"))
    .option("--key-prefix <prefix>", "prefix of every Redis key, so environments can share one Redis (default sendmock:)")
    .action(serve);
}
