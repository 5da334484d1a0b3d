// What the serve and proxy commands share: the flags of a mock (and their environment variables), their parsing, start-up errors, signals.

import bytes from "bytes";
import { type Command, InvalidArgumentError, Option } from "commander";
import { ConfigError, renameKeys } from "../config/check.js";
import { CONFIG_FILE_VARIABLE, ENVIRONMENT_SETTINGS, settingsFromEnvironment } from "../config/environment.js";
import type { FlagDeclaration } from "../config/declaration.js";
import { DECLARED_SETTINGS, snakeToCamel, type SettingKey } from "../config/schema.js";
import type { SendMockOptions } from "../config/resolve.js";
import { ContractError } from "../contract/load.js";
import type { RunningSendMock } from "../mock.js";
import { StoreUnavailableError } from "../domain/store-errors.js";
import { TemplateFolderError } from "../domain/templates.js";
import { LOG_FORMATS, type CommandLog, type LogDetail, type LogFormat } from "./log.js";

export function parsePort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535) throw new InvalidArgumentError("must be a whole number from 0 to 65535");
  return port;
}

function parseSize(value: string): number {
  const size = bytes.parse(value);
  if (size === null || !Number.isFinite(size) || size < 1024) throw new InvalidArgumentError('must be a size of at least 1kb, such as "1mb" or "256kb"');
  return size;
}

function parseNonEmpty(value: string): string {
  if (value.trim() === "") throw new InvalidArgumentError("must not be empty");
  return value;
}

export function fail(message: string, exitCode = 1): never {
  process.stderr.write(`sendmock: ${message}\n`);
  process.exit(exitCode);
}

/**
 * A listening mock for the command, or exit 1 saying why it cannot start. The mock's modules
 * (express and all behind it) load here and not when the bin starts, so that a usage error,
 * --help, --version and `sendmock check`, which need none of them, respond sooner.
 */
export async function startMockOrFail(options: SendMockOptions, command: Command): Promise<RunningSendMock> {
  const { startSendMock } = await import("../mock.js");
  return Promise.resolve()
    .then(() => startSendMock(withEnvironment(options), "command line"))
    .catch((error: unknown) => {
      const problem = describeStartError(error);
      // A variable's own problem names it already.
      fail(problem.startsWith("environment:") ? problem : `${problem}${environmentNote(command)}`);
    });
}

/** The settings of the environment (config/environment.ts) under the flags: a flag given wins over its key's variable. */
function withEnvironment(options: SendMockOptions): SendMockOptions {
  const fromEnvironment = renameKeys(settingsFromEnvironment(process.env), snakeToCamel) as SendMockOptions;
  const given = Object.entries(options).filter(([, value]) => value !== undefined);
  return { ...fromEnvironment, ...Object.fromEntries(given) };
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
 * How often a server started by a package manager looks for its parent. Reading `process.ppid`
 * is one getppid call (~0.5 µs measured), so four reads a second cost nothing, and a stop takes
 * at most this long to notice on top of shutdown_grace_ms.
 */
const PARENT_POLL_MS = 250;

/**
 * The parent as the bin started, read when this module loads rather than once the mock listens
 * (~200 ms later): a parent that dies during the start is then seen gone too.
 */
const PARENT_AT_START = process.ppid;

/**
 * Whether a package manager started this process (`npm start`, `npx`, `npm exec`, and the
 * same from pnpm or yarn): they set these variables in the environment of what they run.
 */
function startedByPackageManager(env: NodeJS.ProcessEnv): boolean {
  return ["npm_lifecycle_event", "npm_command", "npm_execpath", "npm_config_user_agent"].some((name) => env[name] !== undefined);
}

/**
 * SIGINT/SIGTERM: stop accepting, finish in-flight requests, exit 0. The mock cuts connections
 * still open after shutdown_grace_ms; the exit that follows it here also covers a store that
 * does not respond to its goodbye.
 *
 * Started by a package manager, the server also stops so when its parent is gone. npm runs a
 * command as `sh -c "…"` and passes SIGTERM to that shell only: the shell dies, npm exits, and
 * node, re-parented to PID 1 (or a subreaper), would keep its port and its pipes (a test's
 * `close` event would never come). A changed `process.ppid` says the parent is gone. A client that
 * starts sendmock itself (the Python plugin) asks for the same with `--stop-with-parent`, so a
 * test session killed outright leaves no server behind. (A SIGINT
 * npm passes on, dash keeps while it waits for node: nothing here can see it, which is why
 * `npm start` execs node.) Started otherwise (by hand, a service manager, a container's init),
 * the server keeps running as its parent decides, and nothing is watched.
 */
export function closeOnSignals(
  server: { close(): Promise<void>; config: { shutdownGraceMs: number } },
  log: CommandLog,
  options: { stopWithParent?: boolean } = {},
): void {
  let stopping = false;
  const stop = (why: string): void => {
    if (stopping) return;
    stopping = true;
    const graceMs = server.config.shutdownGraceMs;
    log.notice(`${why}, finishing in-flight requests (at most ${graceMs} ms, shutdown_grace_ms)`);
    setTimeout(() => {
      log.notice(`shutdown_grace_ms (${graceMs} ms) passed, exiting`);
      process.exit(0);
    }, graceMs + 250).unref();
    server.close().then(
      () => log.flush().then(() => process.exit(0)),
      (error: unknown) => fail(`error while stopping: ${String(error)}`),
    );
  };
  process.once("SIGINT", () => stop("SIGINT received"));
  process.once("SIGTERM", () => stop("SIGTERM received"));
  if (options.stopWithParent !== true && !startedByPackageManager(process.env)) return;
  const watch = setInterval(() => {
    if (process.ppid === PARENT_AT_START) return;
    clearInterval(watch);
    stop(`parent process ${PARENT_AT_START} exited (the package manager that started sendmock stopped)`);
  }, PARENT_POLL_MS).unref();
}

/** The flags of the command line only; the config keys' flags (see config/declaration.ts) are read by their attribute names. */
export interface ServeFlags {
  config?: string;
  logFormat: LogFormat;
  logBuffer?: number;
  quiet?: boolean;
  verbose?: boolean;
  stopWithParent?: boolean;
  [declaredFlag: string]: unknown;
}

/** A config key's flag, as commander names its value: `--redis-url` gives `redisUrl`. */
interface DeclaredFlag {
  key: SettingKey;
  flag: FlagDeclaration;
  attribute: string;
  choices: readonly string[] | undefined;
}

const DECLARED_FLAGS: readonly DeclaredFlag[] = DECLARED_SETTINGS.flatMap(([key, declaration]) => {
  const { flag } = declaration;
  if (flag === undefined) return [];
  const long = flag.name.split(" ")[0] ?? flag.name;
  const { enum: choices } = declaration.schema as { enum?: readonly string[] };
  return [{ key, flag, attribute: snakeToCamel(long.slice(2).replaceAll("-", "_")), choices }];
});

export function logDetailOf(flags: ServeFlags): LogDetail {
  return flags.quiet === true ? "quiet" : flags.verbose === true ? "verbose" : "normal";
}

/** The flags `serve` and `proxy` share, as the options of a mock that reports to the command's log. */
export function optionsFromFlags(flags: ServeFlags, log: CommandLog): SendMockOptions {
  const declared = Object.fromEntries(DECLARED_FLAGS.map(({ key, attribute }) => [snakeToCamel(key), flags[attribute]]));
  return {
    ...(declared as SendMockOptions),
    config: flags.config,
    log: (line) => log.problem(line),
    requestLog: log.requestLog,
  };
}

/** The variables of the environment the flags of every command that starts a mock may be given by: a flag wins over its variable, and it wins over the config file. */
const ENVIRONMENT_VARIABLES: Readonly<Record<string, string>> = {
  ...Object.fromEntries(DECLARED_FLAGS.flatMap(({ flag, attribute }) => (flag.env === undefined || flag.serveOnly === true ? [] : [[attribute, flag.env]]))),
  config: CONFIG_FILE_VARIABLE,
};

/**
 * ` (environment: SENDMOCK_TEMPLATES)` when a variable gave one of the settings: a start that
 * fails on a value nobody typed on the command line must say where the value came from.
 */
export function environmentNote(command: Command): string {
  const used = [
    ...Object.entries(ENVIRONMENT_VARIABLES)
      .filter(([flag]) => command.getOptionValueSource(flag) === "env")
      .map(([, variable]) => variable),
    ...ENVIRONMENT_SETTINGS.filter((variable) => (process.env[variable] ?? "") !== ""),
  ];
  return used.length === 0 ? "" : ` (environment: ${used.join(", ")})`;
}

const PARSERS = { port: parsePort, "non-empty": parseNonEmpty } as const;

/** A config key's flag as commander takes it; `help` words it where the declaration leaves that to the command. */
function optionOf({ flag, choices }: DeclaredFlag, help: string | undefined): Option {
  const option = new Option(flag.name, flag.help ?? help);
  if (flag.parse !== undefined) option.argParser<unknown>(PARSERS[flag.parse]);
  if (choices !== undefined) option.choices(choices);
  if (flag.env !== undefined) option.env(flag.env);
  return option;
}

/** Declares the flags every command that starts a mock takes; `help` words the ones whose meaning differs by command. */
export function addMockFlags(command: Command, help: Partial<Record<SettingKey, string>>): Command {
  for (const declared of DECLARED_FLAGS) {
    if (declared.flag.serveOnly === true) continue;
    command.addOption(optionOf(declared, help[declared.key]));
    // --help has always listed the config file right after the flags saying where the mock listens and what it serves.
    if (declared.key === "templates") {
      command.addOption(
        new Option("--config <file>", "JSON or YAML config file; flags and the environment win over it").argParser(parseNonEmpty).env(CONFIG_FILE_VARIABLE),
      );
    }
  }
  return command
    .addOption(
      new Option("--log-format <format>", "the request log on stdout: one readable line per request, or pino's JSON lines")
        .choices(LOG_FORMATS)
        .default("text"),
    )
    .addOption(
      new Option("--log-buffer <size>", `unwritten log kept while stdout is not read, past it lines are dropped and counted (default 1mb)`).argParser(
        parseSize,
      ),
    )
    .addOption(new Option("--quiet", "log start, stop and problems only, no line per request").conflicts("verbose"))
    .option("--verbose", "also log every /_mock call");
}

/** Declares the flags only `serve` takes (the store's). */
export function addServeFlags(command: Command): Command {
  for (const declared of DECLARED_FLAGS) if (declared.flag.serveOnly === true) command.addOption(optionOf(declared, undefined));
  return command.option("--stop-with-parent", "stop when the process that started sendmock exits, as a test session's client asks");
}
