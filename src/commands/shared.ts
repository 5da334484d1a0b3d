// What the serve and proxy commands share: the flags of a mock, their parsing, start-up errors, signals.

import { type Command, InvalidArgumentError, Option } from "commander";
import { ConfigError, type SendMockOptions } from "../config.js";
import { ContractError } from "../contract/load.js";
import { StoreUnavailableError } from "../domain/store-errors.js";
import { TemplateFolderError } from "../domain/templates.js";

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
  if (error instanceof ConfigError || error instanceof ContractError || error instanceof TemplateFolderError || error instanceof StoreUnavailableError)
    return error.message;
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

/** Declares the flags every command that starts a mock takes; `help` words the ones whose meaning differs. */
export function addMockFlags(command: Command, help: { templates: string; shape: string }): Command {
  return command
    .option("--port <port>", "port to listen on (0 picks a free one; default 4010)", parsePort)
    .option("--host <host>", "address to bind (default 127.0.0.1)")
    .option("--templates <dir>", help.templates)
    .option("--config <file>", "JSON or YAML config file; flags win over it")
    .addOption(new Option("--shape <shape>", help.shape).choices(["a", "b"]));
}
