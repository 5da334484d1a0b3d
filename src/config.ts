// The settings of one mock: defaults, then a config file, then flags or options, checked once.

import { DEFAULT_IDEMPOTENCY_TTL_S, DEFAULT_MAX_IDEMPOTENCY_KEYS } from "./domain/idempotency.js";
import { readFileSync } from "node:fs";
import path from "node:path";
import bytes from "bytes";
import type { YAMLParseError } from "yaml";
import { ERROR_CODES, type ErrorCode } from "./errors.js";
import { checkFaultRule, DEFAULT_RESPOND_DEPTH, MAX_RESPOND_DEPTH } from "./domain/faults.js";
import { DEFAULT_MAX_EVENTS, DEFAULT_MAX_LINK_BYTES, DEFAULT_STEP_MS, MAX_STEP_MS, type LifecycleSettings } from "./domain/lifecycle.js";
import {
  DEFAULT_MAX_PENDING_WEBHOOK_ATTEMPTS,
  DEFAULT_MAX_WEBHOOK_DELIVERIES,
  DEFAULT_WEBHOOK_CONCURRENCY,
  DEFAULT_WEBHOOK_RETRY_MS,
  DEFAULT_WEBHOOK_TIMEOUT_MS,
  newWebhook,
  webhookProblem,
} from "./domain/webhooks.js";
import { listedRuleProblem } from "./contract/rule-inputs.js";
import { describeProblem, schemaCheck, type KeyNaming } from "./contract/schema-check.js";
import { OUTCOMES, type FaultRuleInput, type Outcome, type OutcomeRuleInput, type ResponseShape, type Webhook, type WebhookInput } from "./wire.js";
import { isHttpUrl, isLoopbackHost, withoutCredentials } from "./domain/addresses.js";
import { DEFAULT_SENDER, senderProblem } from "./domain/eml.js";
import { yaml } from "./domain/yaml.js";
import { packagePath } from "./package-root.js";
import { DEFAULT_MAX_RATE_LIMIT_BUCKETS, type RateLimitOptions } from "./domain/rate-limiter.js";
import type { RequestLog } from "./domain/request-log.js";

export const DEFAULT_PORT = 4010;
export const DEFAULT_HOST = "127.0.0.1";
export const SHIPPED_TEMPLATES = packagePath("fixtures", "templates");

/** Options of `startSendMock` / `createSendMock`: the config keys in camelCase, all optional. */
export interface SendMockOptions {
  port?: number;
  host?: string;
  /** Folder of templates; defaults to the shipped ones. */
  templates?: string;
  responseShape?: ResponseShape;
  /** Accepted API keys; absent or null accepts any non-empty bearer token. */
  apiKeys?: string[] | null;
  strictData?: boolean;
  rateLimit?: RateLimitOptions | null;
  faults?: FaultRuleInput[];
  /** Outcome rules present from the start (and restored by reset), written as on the wire. */
  outcomeRules?: OutcomeRuleInput[];
  /** What happens to a message after capture; see docs/delivery-events.md. */
  lifecycle?: LifecycleOptions;
  /** Webhooks present from the start (and restored by reset); see docs/delivery-events.md, "Webhooks". */
  webhooks?: WebhookInput[];
  /** How long a webhook receiver may take to answer (default 5000). */
  webhookTimeoutMs?: number;
  /** Mock-clock delays before each retry of a failed delivery (default [1000, 5000, 30000]). */
  webhookRetryMs?: number[];
  /** Delivery attempts kept for `GET /_mock/webhooks/deliveries` (default 1000). */
  maxWebhookDeliveries?: number;
  /** Webhook attempts made at once (default 32); one webhook beyond a quarter of them only while another quarter stays free. */
  webhookConcurrency?: number;
  /** Webhook attempts waiting to be made at once (default 10000); past it an event's attempt is listed as not sent. */
  maxPendingWebhookAttempts?: number;
  /** How long an `Idempotency-Key`'s answer is kept, in seconds of the mock's clock (default 86400). */
  idempotencyTtlS?: number;
  /** Idempotency keys kept at once (default 10000); the oldest go past it. */
  maxIdempotencyKeys?: number;
  /** Rate-limit buckets kept at once, one per API key (default 10000); past it the one used longest ago goes. */
  maxRateLimitBuckets?: number;
  capacity?: number;
  bodyLimit?: string;
  statusCodes?: Partial<Record<ErrorCode, number>>;
  seed?: number | null;
  allowFaultHeader?: boolean;
  allowMagicRecipients?: boolean;
  adminToken?: string | null;
  /** The From of a message downloaded as .eml (default `sendmock <no-reply@sendmock.test>`): one mailbox. */
  sender?: string;
  corsOrigins?: string[];
  /** Host names a loopback-bound mock answers besides 127.0.0.1, ::1 and localhost. */
  allowedHosts?: string[];
  /** How long a client may take to send a request's headers (default 20000). */
  headersTimeoutMs?: number;
  /** How long a client may take to send a whole request, body included (default 120000). */
  requestTimeoutMs?: number;
  /** How long an idle keep-alive connection stays open (default 5000). */
  keepAliveTimeoutMs?: number;
  /** Largest request line plus headers, in bytes (default 16384); larger ones get 431. */
  maxHeaderBytes?: number;
  /** Total size of kept messages and journal (default 48 MB): past it the oldest go, as with `capacity`. */
  maxBytes?: number | string;
  /** Largest page of `GET /_mock/messages` or `/_mock/requests` (default 32 MB); a page is cut there and says so. */
  maxPageBytes?: number | string;
  /** Most fault rules at once (default 1000). */
  maxRules?: number;
  /** Most levels of arrays and objects a `respond` rule's body may nest (default 100). */
  maxRespondDepth?: number;
  /** Most open event streams (default 100); more get 503. */
  maxEventStreams?: number;
  /** Unread events one stream may hold (default 8 MB) before it is dropped. */
  eventBufferBytes?: number | string;
  /** How much of a request's and an answer's body a journal entry keeps (default 64 KB). */
  journalBodyBytes?: number | string;
  /** A Redis command not answered by then answers 503 (default 2000). */
  redisTimeoutMs?: number;
  /** With the Redis store, how long a replica that stops without letting go holds its due work and in-flight Idempotency-Keys (default 10000). */
  replicaLeaseMs?: number;
  /** After SIGTERM/SIGINT or `close()`, connections still open are cut after it (default 5000). */
  shutdownGraceMs?: number;
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
  /** Where the outbox, journal, fault rules and rate limits live: `redis` shares them between replicas. */
  store?: "memory" | "redis";
  /** `redis://host:port/db`; given alone, it selects the redis store. */
  redisUrl?: string;
  /** Prefix of every Redis key and channel (default `sendmock:`), so environments can share one Redis. */
  keyPrefix?: string;
}

/** `lifecycle` in the config, in camelCase. */
export interface LifecycleOptions {
  /** Mock-clock milliseconds between two events of a message (default 1000). */
  stepMs?: number;
  /** The outcome of a message no magic recipient or rule decides (default `delivered`). */
  defaultOutcome?: Outcome;
  /** False keeps every message `queued` (default true). */
  enabled?: boolean;
  /** Most events one message keeps (default 100); a by-hand event past it answers 400. */
  maxEvents?: number;
  /** Most of the link a `message.clicked` event keeps, in bytes (default 8192); a longer one is cut, whole in the message's `links`. */
  maxLinkBytes?: number;
}

/** The state store of a mock, as resolved. */
export type StoreSettings = { kind: "memory" } | { kind: "redis"; url: string; keyPrefix: string };

export const DEFAULT_KEY_PREFIX = "sendmock:";

export interface ProxyOptions {
  /** The real service's base URL (http or https); requests go to `{target}/send`. */
  target: string;
  /** Answer 502 contract_violation instead of passing on an answer that breaks the contract. */
  strict?: boolean;
  /** How long to wait for the service's answer (default 30000). */
  timeoutMs?: number;
  /**
   * What both directions are judged by: `published` (default, openapi/service.yaml: what the
   * service's spec publishes), `sendmock` (openapi/send.yaml) or an OpenAPI 3.x file with POST /send.
   */
  contract?: string;
}

export interface ResolvedConfig {
  port: number;
  host: string;
  templates: string;
  responseShape: ResponseShape;
  apiKeys: string[] | null;
  strictData: boolean;
  rateLimit: RateLimitOptions | null;
  faults: FaultRuleInput[];
  outcomeRules: OutcomeRuleInput[];
  lifecycle: LifecycleSettings;
  /** With their ids and secrets (generated when the config gave none). */
  webhooks: Webhook[];
  webhookTimeoutMs: number;
  webhookRetryMs: readonly number[];
  maxWebhookDeliveries: number;
  webhookConcurrency: number;
  maxPendingWebhookAttempts: number;
  idempotencyTtlS: number;
  maxIdempotencyKeys: number;
  maxRateLimitBuckets: number;
  capacity: number;
  bodyLimit: string;
  bodyLimitBytes: number;
  statusCodes: Partial<Record<ErrorCode, number>>;
  seed: number | null;
  allowFaultHeader: boolean;
  allowMagicRecipients: boolean;
  adminToken: string | null;
  sender: string;
  corsOrigins: string[];
  allowedHosts: string[];
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  maxHeaderBytes: number;
  maxBytes: number;
  maxPageBytes: number;
  maxRules: number;
  maxRespondDepth: number;
  maxEventStreams: number;
  eventBufferBytes: number;
  journalBodyBytes: number;
  redisTimeoutMs: number;
  replicaLeaseMs: number;
  shutdownGraceMs: number;
  log: (line: string) => void;
  requestLog: RequestLog | null;
  watchTemplates: boolean;
  proxy: Required<ProxyOptions> | null;
  store: StoreSettings;
}

/** A setting that cannot be used; the message is one line naming where it came from. */
export class ConfigError extends Error {
  override name = "ConfigError";
}

/**
 * Ranges whose answers stay within the send contract: per_seconds of 1e-320 made the reset
 * NaN, and 1e308 or a burst of 1e21 printed exponents in the RateLimit headers. A millisecond
 * to a day, and a million tokens, cover any rate a test needs.
 */
export const RATE_LIMIT_BOUNDS = { maxTokens: 1_000_000, minPerSeconds: 0.001, maxPerSeconds: 86_400 } as const;

const rateLimitSchema = {
  type: "object",
  additionalProperties: false,
  required: ["requests", "per_seconds"],
  properties: {
    requests: { type: "integer", minimum: 1, maximum: RATE_LIMIT_BOUNDS.maxTokens },
    per_seconds: { type: "number", minimum: RATE_LIMIT_BOUNDS.minPerSeconds, maximum: RATE_LIMIT_BOUNDS.maxPerSeconds },
    burst: { type: "integer", minimum: 1, maximum: RATE_LIMIT_BOUNDS.maxTokens },
  },
} as const;

/**
 * What `Authorization: Bearer <token>` can carry (RFC 6750 b64token): a key or token outside it
 * can never be sent, so a mock started with one would refuse every caller.
 */
const BEARER_TOKEN_PATTERN = "^[A-Za-z0-9\\-._~+/]+=*$";
const bearerTokenSchema = {
  type: "string",
  minLength: 1,
  pattern: BEARER_TOKEN_PATTERN,
  maxLength: 4096,
  description: "a token that Authorization: Bearer can carry: letters, digits and - . _ ~ + / only (then = padding), no spaces",
} as const;

/**
 * Timeouts of the HTTP server. Below 100 ms a healthy client on a busy machine misses them;
 * above an hour a stuck client holds its socket for no use a mock has.
 */
const timeoutMsSchema = { type: "integer", minimum: 100, maximum: 3_600_000 } as const;

export const DEFAULT_LIMITS = {
  headersTimeoutMs: 20_000,
  requestTimeoutMs: 120_000,
  keepAliveTimeoutMs: 5_000,
  // Node's own default (http.maxHeaderSize).
  maxHeaderBytes: 16_384,
  // 48 MB of kept messages and journal: a default server stays near the ~512 MB the interface
  // asks for whatever the message sizes. RSS is mostly garbage of the request path that V8 lets
  // grow to a few times the live heap before it collects, so it follows this bound: in
  // test/bench/abuse.mjs (300 sends of 900 KB; 20 unread streams during 500 of them) the peak
  // RSS was 858-894 MB at 128 MB, 624 MB at 64 MB and 473-546 MB at 48 MB. 10,000 welcome
  // emails (the default capacity) take ~19 MB of the messages' 7/8.
  maxBytes: 48 * 1024 * 1024,
  // A list page is written as one string; V8 refuses strings past 512 MB ("Invalid string length").
  maxPageBytes: 32 * 1024 * 1024,
  maxRules: 1000,
  maxRespondDepth: DEFAULT_RESPOND_DEPTH,
  // Each stream holds a socket and up to event_buffer_bytes of unread events.
  maxEventStreams: 100,
  eventBufferBytes: 8 * 1024 * 1024,
  // Enough for any send a client has a reason to make; with the answer, the headers and the
  // rest, an entry stays below ~150 KB, so the journal's eighth of max_bytes keeps ~100 of the worst.
  journalBodyBytes: 64 * 1024,
  redisTimeoutMs: 2000,
  // Renewed every third of it: a replica must miss three renewals (a stalled event loop, a busy
  // Redis) before the others take over its work, and a killed one's is taken within seconds.
  replicaLeaseMs: 10_000,
  shutdownGraceMs: 5000,
} as const;

const SIZE_PATTERN = "^\\s*\\d+(\\.\\d+)?\\s*([kmg]?b)?\\s*$";
const sizeSchema = {
  anyOf: [{ type: "integer" }, { type: "string", pattern: SIZE_PATTERN, description: 'a size such as "64mb" or "500kb", or a number of bytes' }],
} as const;

/** The config file's keys (snake_case); flags and options are checked against it too. */
export const configSchema = {
  type: "object",
  additionalProperties: false,
  properties: {
    port: { type: "integer", minimum: 0, maximum: 65535 },
    host: { type: "string", minLength: 1 },
    templates: { type: "string", minLength: 1 },
    response_shape: { enum: ["a", "b"] },
    api_keys: { anyOf: [{ type: "null" }, { type: "array", minItems: 1, items: { ...bearerTokenSchema, title: "key" } }] },
    strict_data: { type: "boolean" },
    rate_limit: { anyOf: [{ type: "null" }, rateLimitSchema] },
    // Each item is held to admin.yaml's FaultRuleInput, OutcomeRuleInput, WebhookInput (contract/rule-inputs.ts).
    faults: { type: "array" },
    outcome_rules: { type: "array" },
    lifecycle: {
      type: "object",
      additionalProperties: false,
      properties: {
        step_ms: { type: "integer", minimum: 1, maximum: MAX_STEP_MS },
        default_outcome: { enum: OUTCOMES },
        enabled: { type: "boolean" },
        max_events: { type: "integer", minimum: 10, maximum: 10_000 },
        // Room for a link's start and the marker that says it was cut; up to the default body_limit.
        max_link_bytes: { type: "integer", minimum: 256, maximum: 1_048_576 },
      },
    },
    webhooks: { type: "array" },
    // Up to 5 minutes: a receiver slower than that is down for any test.
    webhook_timeout_ms: { type: "integer", minimum: 1, maximum: 300_000 },
    // Each retry up to a day of the mock's clock, as a lifecycle step; 20 retries are more than any provider makes.
    webhook_retry_ms: { type: "array", maxItems: 20, items: { type: "integer", minimum: 0, maximum: MAX_STEP_MS } },
    max_webhook_deliveries: { type: "integer", minimum: 1, maximum: 1_000_000 },
    // Each attempt made at once holds a socket and its payload's bytes.
    webhook_concurrency: { type: "integer", minimum: 1, maximum: 1000 },
    max_pending_webhook_attempts: { type: "integer", minimum: 1, maximum: 1_000_000 },
    // Up to a year of the mock's clock, as far as one advance moves it.
    idempotency_ttl_s: { type: "integer", minimum: 1, maximum: 31_536_000 },
    max_idempotency_keys: { type: "integer", minimum: 1, maximum: 10_000_000 },
    max_rate_limit_buckets: { type: "integer", minimum: 1, maximum: 10_000_000 },
    capacity: { type: "integer", minimum: 1, maximum: 10_000_000 },
    body_limit: { type: "string", pattern: SIZE_PATTERN, description: 'a size such as "1mb" or "500kb"' },
    status_codes: {
      type: "object",
      propertyNames: { enum: ERROR_CODES, description: "an error code" },
      additionalProperties: { type: "integer", minimum: 400, maximum: 599 },
    },
    // The generator takes a 32-bit seed; beyond it, distinct seeds would give the same draws.
    seed: { anyOf: [{ type: "null" }, { type: "integer", minimum: -2_147_483_648, maximum: 4_294_967_295 }] },
    allow_fault_header: { type: "boolean" },
    allow_magic_recipients: { type: "boolean" },
    admin_token: { anyOf: [{ type: "null" }, { ...bearerTokenSchema, minLength: 8 }] },
    sender: { type: "string", minLength: 1, maxLength: 998 },
    cors_origins: { type: "array", items: { type: "string", minLength: 1 } },
    allowed_hosts: { type: "array", items: { type: "string", minLength: 1 } },
    headers_timeout_ms: timeoutMsSchema,
    request_timeout_ms: timeoutMsSchema,
    keep_alive_timeout_ms: timeoutMsSchema,
    // A request line and an Authorization header need a few hundred bytes; 1 MiB of headers
    // per connection is more memory than any client of a send API has a reason to use.
    max_header_bytes: { type: "integer", minimum: 1024, maximum: 1_048_576 },
    store: { enum: ["memory", "redis"] },
    redis_url: { type: "string", pattern: "^rediss?://", description: "a Redis URL such as redis://127.0.0.1:6379" },
    key_prefix: { type: "string", minLength: 1, maxLength: 200 },
    max_bytes: sizeSchema,
    max_page_bytes: sizeSchema,
    max_rules: { type: "integer", minimum: 1, maximum: 100_000 },
    max_respond_depth: { type: "integer", minimum: 1, maximum: MAX_RESPOND_DEPTH },
    max_event_streams: { type: "integer", minimum: 1, maximum: 10_000 },
    event_buffer_bytes: sizeSchema,
    journal_body_bytes: sizeSchema,
    redis_timeout_ms: timeoutMsSchema,
    replica_lease_ms: timeoutMsSchema,
    // Up to 10 minutes: the longest a latency fault may hold an answer.
    shutdown_grace_ms: { type: "integer", minimum: 0, maximum: 600_000 },
  },
} as const;

const checkSettings = schemaCheck(configSchema);

/** Settings as written in a config file (snake_case keys). */
type FileSettings = Record<string, unknown>;

/** Where options come from: the library's `startSendMock(options)`, or the command line's flags. */
export type OptionsSource = "options" | "command line";

/** The flags whose name is not the key's in kebab-case. */
const FLAG_OF: Partial<Record<string, string>> = { response_shape: "--shape" };

/**
 * How each source spells a key, so a message names it as its user wrote it: a file as is; the
 * library in camelCase (the options and their rate limit; fault rules and status codes are wire
 * objects and keep their snake_case keys); the command line by its flag.
 */
const NAMING: Record<OptionsSource | "file", KeyNaming> = {
  file: (key) => key,
  options: (key, parent) => (parent.length === 0 || (parent.length === 1 && parent[0] === "rate_limit") ? snakeToCamel(key) : key),
  "command line": (key, parent) => (parent.length === 0 ? (FLAG_OF[key] ?? `--${key.replaceAll("_", "-")}`) : key),
};

function check(settings: FileSettings, source: string, naming: KeyNaming): void {
  const problem = checkSettings(settings) ?? listedRuleProblem(settings);
  if (problem) throw new ConfigError(`${source}: ${describeProblem(problem, naming, "the settings")}`);
}

function camelToSnake(key: string): string {
  return key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

function snakeToCamel(key: string): string {
  return key.replace(/_([a-z])/g, (_match, letter: string) => letter.toUpperCase());
}

/**
 * Keys whose values stay as they are: the keys of `status_codes` are error codes, and fault rules
 * are wire objects (snake_case in the library too) whose `respond` headers and body are the user's own.
 */
const KEPT_AS_GIVEN = new Set(["status_codes", "statusCodes", "faults"]);

/** Renames keys recursively, but not inside the values of KEPT_AS_GIVEN. */
function renameKeys(value: unknown, rename: (key: string) => string): unknown {
  if (Array.isArray(value)) return value.map((item) => renameKeys(item, rename));
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(Object.entries(value).map(([key, inner]) => [rename(key), KEPT_AS_GIVEN.has(key) ? inner : renameKeys(inner, rename)]));
}

/**
 * `, line 3, column 1: <what is wrong>`. The yaml library ends its message in a code frame over
 * several lines, where a start error is one line; the frame is not kept, as the line at fault
 * may hold an API key or the admin token, which no message shows whole.
 */
function yamlProblem(error: YAMLParseError): string {
  // The parser recurses once per level of nesting: what runs it out of stack nests too deep.
  const reason = error.message.replace(/ at line \d+, column \d+:[\s\S]*$/, "").replace(/^Maximum call stack size exceeded$/, "nests too deep to read");
  const position = error.linePos?.[0];
  return position === undefined ? `: ${reason}` : `, line ${position.line}, column ${position.col}: ${reason}`;
}

/**
 * `, line 2, column 15: Expected ',' or '}' after property value`: JSON.parse counts characters
 * from the start, and newer Nodes quote the text around the problem, which may hold a key.
 */
function jsonProblem(error: Error, source: string): string {
  const reason = error.message.replace(/, ".*" is not valid JSON$/s, "").replace(/ in JSON at position \d+.*$/s, "");
  const position = /at position (\d+)/.exec(error.message)?.[1];
  if (position === undefined) return `: ${reason}`;
  const before = source.slice(0, Number(position)).split("\n");
  return `, line ${before.length}, column ${(before.at(-1)?.length ?? 0) + 1}: ${reason}`;
}

export function readConfigFile(file: string): FileSettings {
  let source: string;
  try {
    source = readFileSync(file, "utf8");
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (error as Error).message;
    throw new ConfigError(`config file ${file}: ${reason}`);
  }
  let parsed: unknown;
  try {
    parsed = file.endsWith(".json") ? JSON.parse(source) : yaml().parse(source);
  } catch (error) {
    throw new ConfigError(`config file ${file}${error instanceof yaml().YAMLParseError ? yamlProblem(error) : jsonProblem(error as Error, source)}`);
  }
  if (parsed === null || parsed === undefined) return {};
  if (typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new ConfigError(`config file ${file}: must be a mapping of settings, not ${Array.isArray(parsed) ? "a list" : typeof parsed}`);
  }
  const settings = parsed as FileSettings;
  check(settings, `config file ${file}`, NAMING.file);
  if (typeof settings.templates === "string") {
    settings.templates = path.resolve(path.dirname(file), settings.templates);
  }
  return settings;
}

/**
 * Merges defaults, the config file named by `options.config` and the options themselves
 * (options win), and checks the result once.
 */
export function resolveConfig(options: SendMockOptions, optionsSource: OptionsSource = "options"): ResolvedConfig {
  const { config: configFile, log, requestLog, watchTemplates, proxy, ...settingOptions } = options;
  const fromFile = configFile === undefined ? {} : readConfigFile(path.resolve(configFile));
  const defined = Object.fromEntries(Object.entries(settingOptions as Record<string, unknown>).filter(([, value]) => value !== undefined));
  const fromOptions = renameKeys(defined, camelToSnake) as FileSettings;
  check(fromOptions, optionsSource, NAMING[optionsSource]);
  const merged = renameKeys({ ...fromFile, ...fromOptions }, snakeToCamel) as SendMockOptions;

  const host = merged.host ?? DEFAULT_HOST;
  const adminToken = merged.adminToken ?? null;
  if (!isLoopbackHost(host) && adminToken === null) {
    throw new ConfigError(
      `refusing to listen on ${host} without admin_token: anyone who can reach it could read every captured email. Set admin_token, or use a loopback host such as 127.0.0.1`,
    );
  }
  // A problem the schema cannot see is blamed on where its key came from, and names the keys
  // the way that source spells them.
  const blame = (key: string, words: (name: (key: string) => string) => string): ConfigError => {
    const [source, naming] = key in fromOptions ? [optionsSource, NAMING[optionsSource]] : [`config file ${path.resolve(String(configFile))}`, NAMING.file];
    return new ConfigError(`${source}: ${words((name) => naming(name, []))}`);
  };
  const bodyLimit = merged.bodyLimit ?? "1mb";
  const bodyLimitBytes = bytes.parse(bodyLimit);
  if (bodyLimitBytes === null || bodyLimitBytes < 1) {
    throw blame("body_limit", (name) => `${name("body_limit")} must be a size of at least 1B, such as "1mb" or "500kb"`);
  }
  const faults = (fromOptions.faults ?? fromFile.faults ?? []) as FaultRuleInput[];
  const maxHeaderBytes = merged.maxHeaderBytes ?? DEFAULT_LIMITS.maxHeaderBytes;
  const maxRespondDepth = merged.maxRespondDepth ?? DEFAULT_LIMITS.maxRespondDepth;
  faults.forEach((rule, index) => {
    const problem = checkFaultRule(rule, { bodyBytes: bodyLimitBytes, headerBytes: maxHeaderBytes, depth: maxRespondDepth });
    if (problem !== undefined) throw blame("faults", (name) => `${name("faults")}[${index}]: ${problem}`);
  });
  const maxRules = merged.maxRules ?? DEFAULT_LIMITS.maxRules;
  if (faults.length > maxRules) throw blame("faults", (name) => `${faults.length} fault rules, more than ${name("max_rules")} (${maxRules})`);
  const outcomeRules = (fromOptions.outcome_rules ?? fromFile.outcome_rules ?? []) as OutcomeRuleInput[];
  if (outcomeRules.length > maxRules) {
    throw blame("outcome_rules", (name) => `${outcomeRules.length} outcome rules, more than ${name("max_rules")} (${maxRules})`);
  }
  const webhookInputs = (fromOptions.webhooks ?? fromFile.webhooks ?? []) as WebhookInput[];
  webhookInputs.forEach((input, index) => {
    const problem = webhookProblem(input);
    if (problem !== undefined) throw blame("webhooks", (name) => `${name("webhooks")}[${index}].${problem}`);
  });
  if (webhookInputs.length > maxRules) {
    throw blame("webhooks", (name) => `${webhookInputs.length} webhooks, more than ${name("max_rules")} (${maxRules})`);
  }
  const headersTimeoutMs = merged.headersTimeoutMs ?? DEFAULT_LIMITS.headersTimeoutMs;
  const requestTimeoutMs = merged.requestTimeoutMs ?? DEFAULT_LIMITS.requestTimeoutMs;
  // Node refuses it too: the headers are part of the request, so their deadline cannot be later.
  if (headersTimeoutMs > requestTimeoutMs) {
    throw blame(
      "headers_timeout_ms" in fromOptions ? "headers_timeout_ms" : "request_timeout_ms",
      (name) => `${name("headers_timeout_ms")} (${headersTimeoutMs}) must not be above ${name("request_timeout_ms")} (${requestTimeoutMs})`,
    );
  }
  const size = (key: "maxBytes" | "maxPageBytes" | "eventBufferBytes" | "journalBodyBytes", minimum: number): number => {
    const value = merged[key];
    const parsed = value === undefined ? DEFAULT_LIMITS[key] : typeof value === "number" ? value : bytes.parse(value);
    if (parsed === null || !Number.isSafeInteger(parsed) || parsed < minimum) {
      throw blame(camelToSnake(key), (name) => `${name(camelToSnake(key))} must be a size of at least ${bytes.format(minimum)}`);
    }
    return parsed;
  };
  const sender = merged.sender ?? DEFAULT_SENDER;
  const badSender = senderProblem(sender);
  if (badSender !== undefined) throw blame("sender", (name) => `${name("sender")} ${badSender}`);
  const rateLimit = merged.rateLimit ?? null;
  const storeKind = merged.store ?? (merged.redisUrl === undefined ? "memory" : "redis");
  if (storeKind === "redis" && merged.redisUrl === undefined) {
    throw blame("store", (name) => {
      const otherWays = name("redis_url") === "--redis-url" ? "SENDMOCK_REDIS_URL" : "--redis-url, or SENDMOCK_REDIS_URL";
      return `${name("store")} redis needs ${name("redis_url")} (or ${otherWays})`;
    });
  }
  const store: StoreSettings =
    storeKind === "redis" && merged.redisUrl !== undefined
      ? { kind: "redis", url: merged.redisUrl, keyPrefix: merged.keyPrefix ?? DEFAULT_KEY_PREFIX }
      : { kind: "memory" };
  return {
    port: merged.port ?? DEFAULT_PORT,
    host,
    templates: path.resolve(merged.templates ?? SHIPPED_TEMPLATES),
    responseShape: merged.responseShape ?? "a",
    apiKeys: merged.apiKeys ?? null,
    strictData: merged.strictData ?? false,
    rateLimit: rateLimit && { ...rateLimit, burst: rateLimit.burst ?? rateLimit.requests },
    faults,
    outcomeRules,
    lifecycle: {
      stepMs: merged.lifecycle?.stepMs ?? DEFAULT_STEP_MS,
      defaultOutcome: merged.lifecycle?.defaultOutcome ?? "delivered",
      enabled: merged.lifecycle?.enabled ?? true,
      maxEvents: merged.lifecycle?.maxEvents ?? DEFAULT_MAX_EVENTS,
      maxLinkBytes: merged.lifecycle?.maxLinkBytes ?? DEFAULT_MAX_LINK_BYTES,
    },
    webhooks: webhookInputs.map(newWebhook),
    webhookTimeoutMs: merged.webhookTimeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS,
    webhookRetryMs: merged.webhookRetryMs ?? DEFAULT_WEBHOOK_RETRY_MS,
    maxWebhookDeliveries: merged.maxWebhookDeliveries ?? DEFAULT_MAX_WEBHOOK_DELIVERIES,
    webhookConcurrency: merged.webhookConcurrency ?? DEFAULT_WEBHOOK_CONCURRENCY,
    maxPendingWebhookAttempts: merged.maxPendingWebhookAttempts ?? DEFAULT_MAX_PENDING_WEBHOOK_ATTEMPTS,
    idempotencyTtlS: merged.idempotencyTtlS ?? DEFAULT_IDEMPOTENCY_TTL_S,
    maxIdempotencyKeys: merged.maxIdempotencyKeys ?? DEFAULT_MAX_IDEMPOTENCY_KEYS,
    maxRateLimitBuckets: merged.maxRateLimitBuckets ?? DEFAULT_MAX_RATE_LIMIT_BUCKETS,
    capacity: merged.capacity ?? 10_000,
    bodyLimit,
    bodyLimitBytes,
    statusCodes: merged.statusCodes ?? {},
    seed: merged.seed ?? null,
    allowFaultHeader: merged.allowFaultHeader ?? true,
    allowMagicRecipients: merged.allowMagicRecipients ?? true,
    adminToken,
    sender,
    corsOrigins: merged.corsOrigins ?? [],
    allowedHosts: merged.allowedHosts ?? [],
    headersTimeoutMs,
    requestTimeoutMs,
    keepAliveTimeoutMs: merged.keepAliveTimeoutMs ?? DEFAULT_LIMITS.keepAliveTimeoutMs,
    maxHeaderBytes,
    // Below a megabyte, one large message would empty the outbox at once.
    maxBytes: size("maxBytes", 1024 * 1024),
    maxPageBytes: size("maxPageBytes", 64 * 1024),
    maxRules,
    maxRespondDepth,
    maxEventStreams: merged.maxEventStreams ?? DEFAULT_LIMITS.maxEventStreams,
    eventBufferBytes: size("eventBufferBytes", 64 * 1024),
    // 0 keeps no body at all, for bodies that must not be kept.
    journalBodyBytes: size("journalBodyBytes", 0),
    redisTimeoutMs: merged.redisTimeoutMs ?? DEFAULT_LIMITS.redisTimeoutMs,
    replicaLeaseMs: merged.replicaLeaseMs ?? DEFAULT_LIMITS.replicaLeaseMs,
    shutdownGraceMs: merged.shutdownGraceMs ?? DEFAULT_LIMITS.shutdownGraceMs,
    log: log ?? (() => undefined),
    requestLog: requestLog ?? null,
    watchTemplates: watchTemplates ?? true,
    proxy: proxy === undefined ? null : resolveProxy(proxy, optionsSource),
    store,
  };
}

function resolveProxy(proxy: ProxyOptions, optionsSource: OptionsSource): Required<ProxyOptions> {
  if (!isHttpUrl(proxy.target))
    throw new ConfigError(`${optionsSource}: the proxy target must be an http or https URL, got ${JSON.stringify(withoutCredentials(proxy.target))}`);
  const url = new URL(proxy.target);
  // Forwarded, they would go to the service on every send and be printed in the banner, the
  // journal and every 502; the app's own Authorization header is what the proxy passes on.
  if (url.username !== "" || url.password !== "") {
    throw new ConfigError(
      `${optionsSource}: the proxy target must not hold credentials (user:password@); got ${withoutCredentials(proxy.target)}. Leave them out: the proxy passes on your app's Authorization header`,
    );
  }
  const timeoutMs = proxy.timeoutMs ?? 30_000;
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1) throw new ConfigError(`${optionsSource}: the proxy timeout must be a whole number of milliseconds >= 1`);
  const contract = proxy.contract ?? "published";
  if (contract.trim() === "") throw new ConfigError(`${optionsSource}: the proxy contract must be published, sendmock or an OpenAPI file, got ""`);
  return { target: proxy.target.replace(/\/+$/, ""), strict: proxy.strict ?? false, timeoutMs, contract };
}
