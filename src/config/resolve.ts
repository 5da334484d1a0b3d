// The settings of one mock: the declaration's defaults, then a config file, then flags or options, checked once.

import path from "node:path";
import bytes from "bytes";
import { isLoopbackHost } from "../domain/addresses.js";
import { senderProblem } from "../domain/eml.js";
import { checkFaultRule } from "../domain/faults.js";
import type { LifecycleSettings } from "../domain/lifecycle.js";
import type { RateLimitOptions } from "../domain/rate-limiter.js";
import type { RequestLog } from "../domain/request-log.js";
import { newWebhook, webhookProblem } from "../domain/webhooks.js";
import { SHIPPED_TEMPLATES } from "../package-root.js";
import type { RateLimitSettings, Webhook } from "../wire.js";
import { checkConfig, ConfigError, NAMING, renameKeys, type FileSettings, type OptionsSource } from "./check.js";
import { SETTINGS } from "./declaration.js";
import {
  camelToSnake,
  DECLARED_SETTINGS,
  KEPT_AS_GIVEN,
  renamedOneLevel,
  snakeToCamel,
  type CamelCase,
  type OptionValue,
  type SettingKey,
  type SettingOptions,
} from "./schema.js";
import { readConfigFile } from "./file.js";
import { resolveProxy, type ProxyOptions } from "./proxy.js";
import { rateLimitOptionsOf } from "./rate-limit.js";

/** Options of `startSendMock` / `createSendMock`: the config keys in camelCase (see docs/configuration.md), all optional, and the library's own. */
export interface SendMockOptions extends SettingOptions {
  /** A JSON or YAML config file; options given here win over it. */
  config?: string;
  /** Where problems are reported (a template that breaks, a folder that goes away); silent by default in the library. */
  log?: (line: string) => void;
  /** Where each request is reported (a line per /send); silent by default in the library. */
  requestLog?: RequestLog;
  /** Watch the templates folder and apply edits without a restart (default true). */
  watchTemplates?: boolean;
  /** Proxy mode: POST /send goes to the real service at `target`, checked against the contract. */
  proxy?: ProxyOptions;
}

/** The state store of a mock, as resolved. */
export type StoreSettings = { kind: "memory" } | { kind: "redis"; url: string; keyPrefix: string };

/** The sizes, given as bytes or as `bytes` writes them: the keys the declaration gives a least number of bytes. */
type SizeKey = { [K in SettingKey]: (typeof SETTINGS)[K] extends { minimumBytes: number } ? K : never }[SettingKey];
/** Each size with the least it may be, as declared. */
const SIZE_MINIMUMS = DECLARED_SETTINGS.flatMap(([key, { minimumBytes }]) => (minimumBytes === undefined ? [] : [[key as SizeKey, minimumBytes] as const]));
const SIZE_KEYS: ReadonlySet<SettingKey> = new Set(SIZE_MINIMUMS.map(([key]) => key));

/** The keys whose resolved value is more than the value given or the default (sizes aside). */
const WORKED_OUT = ["templates", "rate_limit", "lifecycle", "webhooks", "store", "redis_url", "key_prefix"] as const satisfies readonly SettingKey[];
type PlainKey = Exclude<SettingKey, SizeKey | (typeof WORKED_OUT)[number]>;
const PLAIN_KEYS = DECLARED_SETTINGS.map(([key]) => key).filter(
  (key): key is PlainKey => !SIZE_KEYS.has(key) && !(WORKED_OUT as readonly string[]).includes(key),
);

type PlainSettings = { [K in PlainKey as CamelCase<K>]: OptionValue<K> };
type SizeSettings = { [K in SizeKey as CamelCase<K>]: number };

export interface ResolvedConfig extends PlainSettings, SizeSettings {
  templates: string;
  rateLimit: RateLimitOptions | null;
  lifecycle: LifecycleSettings;
  /** With their ids and secrets (generated when the config gave none). */
  webhooks: Webhook[];
  bodyLimitBytes: number;
  log: (line: string) => void;
  requestLog: RequestLog | null;
  watchTemplates: boolean;
  proxy: Required<ProxyOptions> | null;
  store: StoreSettings;
}

const camelKeys = (value: unknown): unknown => renamedOneLevel(value, snakeToCamel);

/**
 * Merges the declaration's defaults, the config file named by `options.config` and the options
 * themselves (options win), and checks the result once.
 */
export function resolveConfig(options: SendMockOptions, optionsSource: OptionsSource = "options"): ResolvedConfig {
  const { config: configFile, log, requestLog, watchTemplates, proxy, ...settingOptions } = options;
  const fromFile = configFile === undefined ? {} : readConfigFile(path.resolve(configFile));
  const defined = Object.fromEntries(Object.entries(settingOptions as Record<string, unknown>).filter(([, value]) => value !== undefined));
  const fromOptions = renameKeys(defined, camelToSnake) as FileSettings;
  checkConfig(fromOptions, optionsSource, NAMING[optionsSource]);
  const given: FileSettings = { ...fromFile, ...fromOptions };
  /** The key's value as given (in the file's spelling), else its default; a default is copied, as a mock may change what it holds. */
  const valueOf = (key: SettingKey): unknown => given[key] ?? structuredClone((SETTINGS[key] as { default?: unknown }).default);

  const host = valueOf("host") as string;
  const adminToken = valueOf("admin_token") as string | null;
  if (!isLoopbackHost(host) && adminToken === null && valueOf("allow_open_admin") !== true) {
    throw new ConfigError(
      `refusing to listen on ${host} without admin_token: anyone who can reach it could read every captured email. Set admin_token, or use a loopback host such as 127.0.0.1 (allow_open_admin: true listens all the same)`,
    );
  }
  // A problem the schema cannot see is blamed on where its key came from, and names the keys
  // the way that source spells them.
  const blame = (key: string, words: (name: (key: string) => string) => string): ConfigError => {
    const [source, naming] = key in fromOptions ? [optionsSource, NAMING[optionsSource]] : [`config file ${path.resolve(String(configFile))}`, NAMING.file];
    return new ConfigError(`${source}: ${words((name) => naming(name, []))}`);
  };
  const bodyLimit = valueOf("body_limit") as string;
  const bodyLimitBytes = bytes.parse(bodyLimit);
  if (bodyLimitBytes === null || bodyLimitBytes < 1) {
    throw blame("body_limit", (name) => `${name("body_limit")} must be a size of at least 1B, such as "1mb" or "500kb"`);
  }
  const faults = valueOf("faults") as ResolvedConfig["faults"];
  const limits = { bodyBytes: bodyLimitBytes, headerBytes: valueOf("max_header_bytes") as number, depth: valueOf("max_respond_depth") as number };
  faults.forEach((rule, index) => {
    const problem = checkFaultRule(rule, limits);
    if (problem !== undefined) throw blame("faults", (name) => `${name("faults")}[${index}]: ${problem}`);
  });
  const maxRules = valueOf("max_rules") as number;
  if (faults.length > maxRules) throw blame("faults", (name) => `${faults.length} fault rules, more than ${name("max_rules")} (${maxRules})`);
  const outcomeRules = valueOf("outcome_rules") as ResolvedConfig["outcomeRules"];
  if (outcomeRules.length > maxRules) {
    throw blame("outcome_rules", (name) => `${outcomeRules.length} outcome rules, more than ${name("max_rules")} (${maxRules})`);
  }
  const webhookInputs = valueOf("webhooks") as OptionValue<"webhooks">;
  webhookInputs.forEach((input, index) => {
    const problem = webhookProblem(input);
    if (problem !== undefined) throw blame("webhooks", (name) => `${name("webhooks")}[${index}].${problem}`);
  });
  if (webhookInputs.length > maxRules) {
    throw blame("webhooks", (name) => `${webhookInputs.length} webhooks, more than ${name("max_rules")} (${maxRules})`);
  }
  const headersTimeoutMs = valueOf("headers_timeout_ms") as number;
  const requestTimeoutMs = valueOf("request_timeout_ms") as number;
  // Node refuses it too: the headers are part of the request, so their deadline cannot be later.
  if (headersTimeoutMs > requestTimeoutMs) {
    throw blame(
      "headers_timeout_ms" in fromOptions ? "headers_timeout_ms" : "request_timeout_ms",
      (name) => `${name("headers_timeout_ms")} (${headersTimeoutMs}) must not be above ${name("request_timeout_ms")} (${requestTimeoutMs})`,
    );
  }
  const sender = valueOf("sender") as string;
  const badSender = senderProblem(sender);
  if (badSender !== undefined) throw blame("sender", (name) => `${name("sender")} ${badSender}`);
  const store = resolveStore(given, blame);
  const sizes = Object.fromEntries(
    SIZE_MINIMUMS.map(([key, minimum]) => {
      const value = valueOf(key) as number | string;
      const parsed = typeof value === "number" ? value : bytes.parse(value);
      if (parsed === null || !Number.isSafeInteger(parsed) || parsed < minimum) {
        throw blame(key, (name) => `${name(key)} must be a size of at least ${bytes.format(minimum)}`);
      }
      return [snakeToCamel(key), parsed];
    }),
  ) as unknown as SizeSettings;
  const lifecycle = camelKeys({ ...SETTINGS.lifecycle.default, ...(given.lifecycle as object | undefined) }) as LifecycleSettings;
  const plain = Object.fromEntries(
    PLAIN_KEYS.map((key) => [snakeToCamel(key), KEPT_AS_GIVEN.has(key) ? valueOf(key) : camelKeys(valueOf(key))]),
  ) as unknown as PlainSettings;
  return {
    ...plain,
    ...sizes,
    templates: path.resolve((given.templates as string | undefined) ?? SHIPPED_TEMPLATES),
    rateLimit: rateLimitOptionsOf(valueOf("rate_limit") as RateLimitSettings | null),
    lifecycle,
    webhooks: webhookInputs.map(newWebhook),
    bodyLimitBytes,
    log: log ?? (() => undefined),
    requestLog: requestLog ?? null,
    watchTemplates: watchTemplates ?? true,
    proxy: proxy === undefined ? null : resolveProxy(proxy, optionsSource),
    store,
  };
}

/** `store`, `redis_url` and `key_prefix` as one: a Redis URL given alone selects the redis store. */
function resolveStore(given: FileSettings, blame: (key: string, words: (name: (key: string) => string) => string) => ConfigError): StoreSettings {
  const url = given.redis_url as string | undefined;
  const kind = (given.store as "memory" | "redis" | undefined) ?? (url === undefined ? "memory" : "redis");
  if (kind === "redis" && url === undefined) {
    throw blame("store", (name) => {
      const { name: flagName, env } = SETTINGS.redis_url.flag;
      const flag = flagName.split(" ")[0];
      const otherWays = name("redis_url") === flag ? env : `${flag}, or ${env}`;
      return `${name("store")} redis needs ${name("redis_url")} (or ${otherWays})`;
    });
  }
  return kind === "redis" && url !== undefined
    ? { kind: "redis", url, keyPrefix: (given.key_prefix as string | undefined) ?? SETTINGS.key_prefix.default }
    : { kind: "memory" };
}
