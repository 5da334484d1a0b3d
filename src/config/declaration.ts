// Every config key declared once: its schema (type and bounds), its default, its flag and
// environment variable, how `GET /_mock/config` shows it, and its row of docs/configuration.md.

import { Type, type Static, type TSchema } from "typebox";
import { ERROR_CODES, type ErrorCode } from "../errors.js";
import { MAX_STEP_MS } from "../domain/lifecycle.js";
import { DEFAULT_MAX_RATE_LIMIT_BUCKETS } from "../domain/rate-limiter.js";
import { DEFAULT_MAX_SANDBOXES } from "../domain/sandboxes.js";
import { DEFAULT_MAX_RULES } from "../domain/rule-book.js";
import { OUTCOMES, type FaultRuleInput, type Outcome, type OutcomeRuleInput, type WebhookInput } from "../wire.js";

/** A flag of the commands that start a mock; the key's value type and its schema's `enum` say the rest. */
export interface FlagDeclaration {
  /** As commander takes it: `--port <port>`. */
  name: string;
  /** The help line; absent where each command words its own. */
  help?: string;
  /** The variable of the environment that gives it when the flag is not. */
  env?: string;
  /** How the text is read: a port number, or any text but blank. */
  parse?: "port" | "non-empty";
  /** Only `serve` takes it (the store flags; the proxy keeps nothing worth sharing). */
  serveOnly?: true;
}

/**
 * What `GET /_mock/config` shows of a key: the value in force at start, the value in force now
 * (a setting PATCH may change), the hints of its secrets, whether it is set, or the port listened on.
 */
export type ViewRule = "configured" | "running" | "hints" | "whether set" | "listening";

export interface SettingDeclaration<S extends TSchema = TSchema> {
  /** The key's value as a config file writes it (snake_case), with its bounds: what every source is checked against. */
  schema: S;
  /** In force when no source gives the key; absent where nothing is (or the default is worked out, see `docs.default`). */
  default?: Static<S>;
  /** The library's option keeps the file's keys inside the value (wire objects, error codes), rather than camelCase. */
  keptAsGiven?: true;
  /** A size's least value in bytes, checked once the size is read as bytes (config/resolve.ts): a schema cannot compare "64kb" with a number. */
  minimumBytes?: number;
  flag?: FlagDeclaration;
  view?: ViewRule;
  docs: {
    /** The table's default cell, where the default's own text would not say it. */
    default?: string;
    meaning: string;
  };
}

/**
 * A declared key as the rest of sendmock sees it: its schema as plain JSON Schema, and the type of
 * the value it takes. The public option types are made from these, so the package's types name
 * plain TypeScript types and never typebox's.
 */
export interface Declared<Value> {
  schema: object;
  /** The type of the key's value (snake_case, as a file writes it); a type only, never set. */
  readonly value?: Value;
}

/** Any key's declaration, as code that walks them all reads it. */
export type DeclaredSetting = Omit<SettingDeclaration, "schema" | "default"> & { schema: object; default?: unknown };

/** A key's declaration, its literal types kept (which keys have a default, a flag, ...) for the types derived from it. */
function setting<S extends TSchema, D>(schema: S, declaration: D & Omit<SettingDeclaration<S>, "schema">): D & Declared<Static<S>> {
  return { schema, ...declaration };
}

/**
 * Ranges whose responses stay within the send contract: per_seconds of 1e-320 made the reset
 * NaN, and 1e308 or a burst of 1e21 printed exponents in the RateLimit headers. A millisecond
 * to a day, and a million tokens, cover any rate a test needs.
 */
const RATE_LIMIT_BOUNDS = { maxTokens: 1_000_000, minPerSeconds: 0.001, maxPerSeconds: 86_400 } as const;

/**
 * What `Authorization: Bearer <token>` can carry (RFC 6750 b64token): a key or token outside it
 * can never be sent, so a mock started with one would refuse every caller.
 */
const bearerToken = (options: { title?: string; minLength: number }) =>
  Type.String({
    pattern: "^[A-Za-z0-9\\-._~+/]+=*$",
    maxLength: 4096,
    description: "a token that Authorization: Bearer can carry: letters, digits and - . _ ~ + / only (then = padding), no spaces",
    ...options,
  });

/**
 * Timeouts of the HTTP server. Below 100 ms a healthy client on a busy machine misses them;
 * above an hour a stuck client holds its socket for no use a mock has.
 */
const TIMEOUT_MS = { minimum: 100, maximum: 3_600_000 } as const;
const timeoutMs = () => Type.Integer(TIMEOUT_MS);

const SIZE_PATTERN = "^\\s*\\d+(\\.\\d+)?\\s*([kmg]?b)?\\s*$";
/** A size as a number of bytes or as `bytes` writes it; resolved to bytes, and held to its key's `minimumBytes` (config/resolve.ts). */
const size = () => Type.Union([Type.Integer(), Type.String({ pattern: SIZE_PATTERN, description: 'a size such as "64mb" or "500kb", or a number of bytes' })]);

/** Ranges of `lifecycle`'s keys, shown in its docs row too. */
const MAX_EVENTS = { minimum: 10, maximum: 10_000 } as const;
// Room for a link's start and the marker that says it was cut; up to the default body_limit.
const MAX_LINK_BYTES = { minimum: 256, maximum: 1_048_576 } as const;
// Up to 5 minutes: a receiver slower than that is down for any test.
const WEBHOOK_TIMEOUT_MS = { minimum: 1, maximum: 300_000 } as const;
// Each attempt made at once holds a socket and its payload's bytes.
const WEBHOOK_CONCURRENCY = { minimum: 1, maximum: 1000 } as const;
/**
 * The largest `max_respond_depth`: a rule is copied, stored and sent back by code that recurses
 * once per level (structuredClone, JSON.stringify), which ran out of stack at about 2000 levels.
 */
const RESPOND_DEPTH = { minimum: 1, maximum: 1000 } as const;
// A respond rule of a small body; a budget below it would refuse the rules tests use most.
const MIN_RULE_BYTES = 64 * 1024;

/** The config's keys, in the order of docs/configuration.md's table. */
export const SETTINGS = {
  port: setting(Type.Integer({ minimum: 0, maximum: 65535 }), {
    default: 4010,
    flag: { name: "--port <port>", help: "port to listen on (0 picks a free one; default 4010)", env: "SENDMOCK_PORT", parse: "port" },
    view: "listening",
    docs: { meaning: "`0` picks a free port; the printed URL shows the real one" },
  }),
  host: setting(Type.String({ minLength: 1 }), {
    default: "127.0.0.1",
    flag: { name: "--host <host>", help: "address to bind (default 127.0.0.1)", env: "SENDMOCK_HOST", parse: "non-empty" },
    view: "configured",
    docs: { default: "`127.0.0.1`", meaning: "a non-loopback host is refused unless `admin_token` or `allow_open_admin` is set" },
  }),
  // The shipped folder when absent (config/resolve.ts): where the package is found is no default a file could write.
  templates: setting(Type.String({ minLength: 1 }), {
    flag: { name: "--templates <dir>", env: "SENDMOCK_TEMPLATES", parse: "non-empty" },
    view: "configured",
    docs: { default: "shipped `fixtures/templates`", meaning: "the templates folder" },
  }),
  response_shape: setting(Type.Enum(["a", "b"]), {
    default: "a",
    flag: { name: "--shape <shape>" },
    view: "running",
    docs: { default: "`a`", meaning: "`a` or `b`, see [Errors](errors-and-faults.md#errors)" },
  }),
  // Absent, `redis` when a Redis URL is given, else `memory` (config/resolve.ts).
  store: setting(Type.Enum(["memory", "redis"]), {
    flag: {
      name: "--store <kind>",
      help: "where messages, journal, faults and rate limits live (default memory; redis when a Redis URL is given)",
      serveOnly: true,
    },
    docs: {
      default: "`memory`; `redis` when a Redis URL is given",
      meaning: "where messages, journal, fault rules and rate limits live, see [Running several replicas](replicas.md)",
    },
  }),
  redis_url: setting(Type.String({ pattern: "^rediss?://", description: "a Redis URL such as redis://127.0.0.1:6379" }), {
    flag: { name: "--redis-url <url>", help: "Redis shared by several replicas, e.g. redis://127.0.0.1:6379", env: "SENDMOCK_REDIS_URL", serveOnly: true },
    docs: { meaning: "`redis://[:password@]host:port[/db]` (or `rediss://`)" },
  }),
  key_prefix: setting(Type.String({ minLength: 1, maxLength: 200 }), {
    default: "sendmock:",
    flag: { name: "--key-prefix <prefix>", help: "prefix of every Redis key, so environments can share one Redis (default sendmock:)", serveOnly: true },
    docs: { default: "`sendmock:`", meaning: "prefix of every Redis key and channel" },
  }),
  api_keys: setting(Type.Union([Type.Null(), Type.Array(bearerToken({ title: "key", minLength: 1 }), { minItems: 1 })]), {
    default: null,
    view: "hints",
    docs: { default: "absent: any non-empty bearer token", meaning: "list of accepted keys" },
  }),
  strict_data: setting(Type.Boolean(), {
    default: false,
    view: "running",
    docs: { meaning: "reject `data` keys that match no placeholder" },
  }),
  capacity: setting(Type.Integer({ minimum: 1, maximum: 10_000_000 }), {
    default: 10_000,
    view: "configured",
    docs: { meaning: "captured messages (and journal entries) kept, every sandbox's together; the oldest of all is dropped past it" },
  }),
  body_limit: setting(Type.String({ pattern: SIZE_PATTERN, description: 'a size such as "1mb" or "500kb"' }), {
    default: "1mb",
    view: "configured",
    docs: { meaning: 'largest request body (`"500kb"`, `"2mb"`, bytes)' },
  }),
  status_codes: setting(
    Type.Unsafe<Partial<Record<ErrorCode, number>>>({
      type: "object",
      propertyNames: { enum: ERROR_CODES, description: "an error code" },
      additionalProperties: { type: "integer", minimum: 400, maximum: 599 },
    }),
    {
      default: {},
      keptAsGiven: true,
      view: "configured",
      docs: { meaning: "`{error_code: http_status}`, moves the status of any error of `POST /send`" },
    },
  ),
  admin_token: setting(Type.Union([Type.Null(), bearerToken({ minLength: 8 })]), {
    default: null,
    view: "whether set",
    docs: { meaning: "when set, every `/_mock` call needs `Authorization: Bearer <admin_token>`" },
  }),
  allow_open_admin: setting(Type.Boolean(), {
    default: false,
    view: "configured",
    docs: {
      meaning:
        "listen on a non-loopback host without `admin_token` all the same, the `/_mock` API open to whoever reaches the port (the image sets it), see [Security and limits](security-and-limits.md)",
    },
  }),
  spamd: setting(Type.Union([Type.Null(), Type.String({ pattern: "^[^\\s:]+:[0-9]{1,5}$|^\\[[0-9A-Fa-f:.]+\\]:[0-9]{1,5}$", maxLength: 260 })]), {
    default: null,
    flag: { name: "--spamd <host:port>", help: "a SpamAssassin spamd the messages' spam check asks (default none: the check is off)" },
    docs: {
      default: "none (the `spam` check is off)",
      meaning:
        "`host:port` of a SpamAssassin `spamd` (`spamd --listen 127.0.0.1:783`) the `spam` check of `GET /_mock/messages/{id}/checks` and `sendmock lint` asks, see [Message checks](message-checks.md)",
    },
  }),
  spamd_timeout_ms: setting(Type.Integer({ minimum: 100, maximum: 60_000 }), {
    default: 10_000,
    docs: { meaning: "a `spamd` that has not answered by then (100 to 60000) gives the `spam` check `error`, the other checks still given" },
  }),
  link_check_hosts: setting(Type.Array(Type.String({ minLength: 1, maxLength: 253 }), { maxItems: 1000 }), {
    default: [],
    docs: {
      default: "`[]` (no link is fetched)",
      meaning:
        "hosts whose links `GET /_mock/messages/{id}/checks?online=true` may fetch to see their status; no other link is ever fetched, see [Message checks](message-checks.md)",
    },
  }),
  link_check_timeout_ms: setting(Type.Integer({ minimum: 100, maximum: 60_000 }), {
    default: 5000,
    docs: { meaning: "a link fetched online that has not answered by then (100 to 60000) is a `links` finding" },
  }),
  max_link_checks: setting(Type.Integer({ minimum: 1, maximum: 1000 }), {
    default: 50,
    docs: { meaning: "links fetched by one online check, at most; the others are named as not checked" },
  }),
  sender: setting(Type.String({ minLength: 1, maxLength: 998 }), {
    default: "sendmock <no-reply@sendmock.test>",
    docs: {
      meaning: "the `From` of a message downloaded as `.eml`; one mailbox (`Name <address>` or an address) whose `From` line folds within 998 characters",
    },
  }),
  cors_origins: setting(Type.Array(Type.String({ minLength: 1 })), {
    default: [],
    view: "configured",
    docs: { default: "`[]` (CORS off)", meaning: "origins allowed to call sendmock from a browser" },
  }),
  allowed_hosts: setting(Type.Array(Type.String({ minLength: 1 })), {
    default: [],
    docs: {
      meaning: "host names a loopback-bound sendmock responds to besides `127.0.0.1`, `::1` and `localhost`, see [Security and limits](security-and-limits.md)",
    },
  }),
  rate_limit: setting(
    Type.Union([
      Type.Null(),
      Type.Object(
        {
          requests: Type.Integer({ minimum: 1, maximum: RATE_LIMIT_BOUNDS.maxTokens }),
          per_seconds: Type.Number({ minimum: RATE_LIMIT_BOUNDS.minPerSeconds, maximum: RATE_LIMIT_BOUNDS.maxPerSeconds }),
          burst: Type.Optional(Type.Integer({ minimum: 1, maximum: RATE_LIMIT_BOUNDS.maxTokens })),
        },
        { additionalProperties: false },
      ),
    ]),
    {
      default: null,
      view: "running",
      docs: { meaning: "`{requests, per_seconds, burst}`: a token bucket per API key, see [Rate limiting](errors-and-faults.md#rate-limiting)" },
    },
  ),
  // Each item of a list of rules is held to admin.yaml's FaultRuleInput, OutcomeRuleInput or
  // WebhookInput (contract/rule-inputs.ts), as the /_mock routes hold them.
  faults: setting(Type.Unsafe<FaultRuleInput[]>({ type: "array" }), {
    default: [],
    keptAsGiven: true,
    docs: { meaning: "fault rules present from the start (and restored by reset), see [Reproducing errors](errors-and-faults.md#reproducing-errors)" },
  }),
  lifecycle: setting(
    Type.Object(
      {
        step_ms: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_STEP_MS })),
        default_outcome: Type.Optional(Type.Unsafe<Outcome>({ enum: OUTCOMES })),
        enabled: Type.Optional(Type.Boolean()),
        max_events: Type.Optional(Type.Integer(MAX_EVENTS)),
        max_link_bytes: Type.Optional(Type.Integer(MAX_LINK_BYTES)),
      },
      { additionalProperties: false },
    ),
    {
      default: {
        step_ms: 1000,
        default_outcome: "delivered",
        enabled: true,
        // The outcomes add at most 4 events; the rest come by hand.
        max_events: 100,
        // Each click used to copy the message's first link, so 100 clicks on a message whose link
        // was 800 KB made it 81.6 MB, past max_bytes. 8 KB is the URI length HTTP asks every party
        // to take (RFC 9110 §4.1).
        max_link_bytes: 8192,
      },
      docs: {
        meaning: `what happens after capture: mock-clock ms between events (1 to ${MAX_STEP_MS}), the outcome no recipient or rule decides, \`false\` keeps messages \`queued\`, most events per message, most bytes of the link a \`message.clicked\` event keeps (${MAX_LINK_BYTES.minimum} to ${MAX_LINK_BYTES.maximum}; a longer link is cut, whole in the message's \`links\`); see [Delivery events](delivery-events.md)`,
      },
    },
  ),
  outcome_rules: setting(Type.Unsafe<OutcomeRuleInput[]>({ type: "array" }), {
    default: [],
    docs: { meaning: "outcome rules present from the start (and restored by reset)" },
  }),
  webhooks: setting(Type.Unsafe<WebhookInput[]>({ type: "array" }), {
    default: [],
    docs: { meaning: "`[{url, events, secret, duplicate}]` present from the start (and restored by reset), see [Webhooks](delivery-events.md#webhooks)" },
  }),
  webhook_timeout_ms: setting(Type.Integer(WEBHOOK_TIMEOUT_MS), {
    default: 5000,
    docs: { meaning: `a webhook receiver that has not responded by then (${WEBHOOK_TIMEOUT_MS.minimum} to ${WEBHOOK_TIMEOUT_MS.maximum}) fails the attempt` },
  }),
  // Each retry up to a day of the mock's clock, as a lifecycle step; 20 retries are more than any provider makes.
  webhook_retry_ms: setting(Type.Array(Type.Integer({ minimum: 0, maximum: MAX_STEP_MS }), { maxItems: 20 }), {
    // Svix's first retries, shortened: a test advances the clock over them in one call.
    default: [1000, 5000, 30_000],
    docs: { meaning: "mock-clock delays before each retry of a failed delivery (at most 20, each up to a day); `[]` never retries" },
  }),
  max_webhook_deliveries: setting(Type.Integer({ minimum: 1, maximum: 1_000_000 }), {
    // Attempts kept for `GET /_mock/webhooks/deliveries`.
    default: 1000,
    docs: { meaning: "webhook delivery attempts kept; the oldest go past it" },
  }),
  webhook_concurrency: setting(Type.Integer(WEBHOOK_CONCURRENCY), {
    // A quarter of them to any one webhook: a receiver that hangs holds its share only. Few
    // enough that a burst of events is not thousands of sockets (each with its own copy of the
    // payload's bytes) at once. One pool for every sandbox: 30 sandboxes with a pool each once
    // held 720 attempts open to one receiver that never answered.
    default: 32,
    docs: {
      meaning: `webhook attempts made at once, every sandbox's together (${WEBHOOK_CONCURRENCY.minimum} to ${WEBHOOK_CONCURRENCY.maximum}; with Redis, in each replica); one webhook gets a quarter of them (at least one), and more only while another quarter stays free; the others wait their turn, never in front of lifecycle steps, see [Webhooks](delivery-events.md#webhooks)`,
    },
  }),
  max_pending_webhook_attempts: setting(Type.Integer({ minimum: 1, maximum: 1_000_000 }), {
    // Each is a few hundred bytes (the payload is built again from the message when the attempt
    // is made), so 10,000 weigh ~4 MB; without a bound, events by hand to a receiver that hangs
    // grew them until the process died.
    default: 10_000,
    docs: {
      meaning:
        "webhook attempts waiting to be made at once, every sandbox's together (due, or retries due later; a few hundred bytes each); past it an event's attempt is listed as not sent",
    },
  }),
  // Up to a year of the mock's clock, as far as one advance moves it.
  idempotency_ttl_s: setting(Type.Integer({ minimum: 1, maximum: 31_536_000 }), {
    default: 86_400,
    docs: {
      meaning: "how long the response to an `Idempotency-Key` is kept, in seconds of the mock's clock (1 to a year), see [Retries and idempotency](retries.md)",
    },
  }),
  max_idempotency_keys: setting(Type.Integer({ minimum: 1, maximum: 10_000_000 }), {
    default: 10_000,
    docs: { meaning: "idempotency keys kept at once; the oldest go past it" },
  }),
  max_rate_limit_buckets: setting(Type.Integer({ minimum: 1, maximum: 10_000_000 }), {
    default: DEFAULT_MAX_RATE_LIMIT_BUCKETS,
    docs: {
      meaning:
        "rate-limit buckets kept at once (one per API key that sent); past it the one used longest ago is forgotten, see [Rate limiting](errors-and-faults.md#rate-limiting)",
    },
  }),
  max_sandboxes: setting(Type.Integer({ minimum: 1, maximum: 1_000_000 }), {
    default: DEFAULT_MAX_SANDBOXES,
    docs: {
      meaning:
        "sandboxes in use at once, the default one aside (1 to 1000000); past it a new name is 400 `invalid_request` until a name is let go (`DELETE /_mock/sandboxes/NAME`, a scoped `POST /_mock/reset`, or an unscoped one for all); reads never take one, see [Sandboxes](sandboxes.md)",
    },
  }),
  // The generator takes a 32-bit seed; beyond it, distinct seeds would give the same draws.
  seed: setting(Type.Union([Type.Null(), Type.Integer({ minimum: -2_147_483_648, maximum: 4_294_967_295 })]), {
    default: null,
    view: "configured",
    docs: { default: "random", meaning: "seeds the `probability` draws of fault and outcome rules: same seed, same requests, same outcomes" },
  }),
  allow_fault_header: setting(Type.Boolean(), {
    default: true,
    view: "configured",
    docs: { meaning: "honour the `X-Sendmock-Fault` header family" },
  }),
  allow_magic_recipients: setting(Type.Boolean(), {
    default: true,
    view: "configured",
    docs: { meaning: "honour `F@fault.sendmock.test` recipients" },
  }),
  headers_timeout_ms: setting(timeoutMs(), {
    default: 20_000,
    docs: { meaning: "time a client has to send a request's headers; 408 past it, see [Security and limits](security-and-limits.md)" },
  }),
  request_timeout_ms: setting(timeoutMs(), {
    default: 120_000,
    docs: { meaning: "time a client has to send the whole request, body included (not the time sendmock takes to respond)" },
  }),
  keep_alive_timeout_ms: setting(timeoutMs(), {
    default: 5000,
    docs: { meaning: "an idle keep-alive connection is closed after it" },
  }),
  // A request line and an Authorization header need a few hundred bytes; 1 MiB of headers
  // per connection is more memory than any client of a send API has a reason to use.
  max_header_bytes: setting(Type.Integer({ minimum: 1024, maximum: 1_048_576 }), {
    // Node's own default (http.maxHeaderSize).
    default: 16_384,
    docs: { meaning: "largest request line plus headers; 431 above it" },
  }),
  max_bytes: setting(size(), {
    // A default server stays near the ~512 MB the interface asks for whatever the message sizes.
    // RSS is mostly garbage of the request path that V8 lets grow to a few times the live heap
    // before it collects, so it follows this bound: in test/bench/abuse.mjs (300 sends of 900 KB;
    // 20 unread streams during 500 of them) the peak RSS was 858-894 MB at 128 MB, 624 MB at 64 MB
    // and 473-546 MB at 48 MB. 10,000 welcome emails (the default capacity) take ~19 MB of the messages' 7/8.
    default: "48mb",
    // Below a megabyte, one large message would empty the outbox at once.
    minimumBytes: 1024 * 1024,
    view: "configured",
    docs: {
      meaning:
        "total kept for messages (13/16), journal (1/8) and webhook payloads built for their attempts (1/16), as UTF-8 JSON (in memory, with the messages' search text and index, see [Inspection API](inspection-api.md)), every sandbox's together; the oldest of all go past it (the newest always stays)",
    },
  }),
  max_page_bytes: setting(size(), {
    // A list page is written as one string; V8 refuses strings past 512 MB ("Invalid string length").
    default: "32mb",
    minimumBytes: 64 * 1024,
    docs: { meaning: 'largest page of `GET /_mock/messages` and `GET /_mock/requests`; a page cut there has `"truncated": true`' },
  }),
  max_rules: setting(Type.Integer({ minimum: 1, maximum: 100_000 }), {
    default: DEFAULT_MAX_RULES,
    docs: { meaning: "fault rules at once, and as many outcome rules and webhooks, every sandbox's together; one more is refused with 400 `invalid_request`" },
  }),
  max_rule_bytes: setting(size(), {
    // 1000 respond rules of 90 KB made one unscoped GET /_mock/faults an 86 MB answer built in one
    // turn (~500 ms, measured), and held ~550 MB of RSS in the bench's abuse section.
    default: "8mb",
    minimumBytes: MIN_RULE_BYTES,
    docs: {
      meaning: `what the fault rules may weigh as JSON, every sandbox's together (at least ${MIN_RULE_BYTES / 1024}kb); one more past it is refused with 400 \`invalid_request\`, see [Security and limits](security-and-limits.md)`,
    },
  }),
  max_respond_depth: setting(Type.Integer(RESPOND_DEPTH), {
    default: 100,
    docs: {
      meaning: `levels of arrays and objects a \`respond\` rule's \`body\` may nest (${RESPOND_DEPTH.minimum} to ${RESPOND_DEPTH.maximum}); a deeper one is refused with 400 \`invalid_request\` (a start error in the config file), see [Security and limits](security-and-limits.md)`,
    },
  }),
  max_event_streams: setting(Type.Integer({ minimum: 1, maximum: 10_000 }), {
    // Each stream holds a socket and up to event_buffer_bytes of unread events. Counted once for the
    // mock: counted per sandbox, 7 sandboxes held 700 streams open, none refused.
    default: 100,
    docs: { meaning: "open `GET /_mock/events` streams, every sandbox's together; one more is refused with 503 `server_error` with `Retry-After: 1`" },
  }),
  event_buffer_bytes: setting(size(), {
    default: "8mb",
    minimumBytes: 64 * 1024,
    docs: { meaning: "events waiting for a stream whose client does not read; past it the stream gets `event: dropped` and ends" },
  }),
  journal_body_bytes: setting(size(), {
    // Enough for any send a client has a reason to make; with the response, the headers and the
    // rest, an entry stays below ~150 KB, so the journal's eighth of max_bytes keeps ~100 of the worst.
    default: "64kb",
    // 0 keeps no body at all, for bodies that must not be kept.
    minimumBytes: 0,
    docs: { meaning: "how much of a request's body and of its response's a journal entry keeps, see [Inspection API](inspection-api.md); `0` keeps none" },
  }),
  redis_timeout_ms: setting(timeoutMs(), {
    default: 2000,
    docs: { meaning: "a Redis command that has not completed by then makes the call respond with 503 `server_error` naming the store" },
  }),
  replica_lease_ms: setting(timeoutMs(), {
    // Renewed every third of it: a replica must miss three renewals (a stalled event loop, a busy
    // Redis) before the others take over its work, and a killed one's is taken within seconds.
    default: 10_000,
    docs: {
      meaning: `with Redis, how long the due work and the \`Idempotency-Key\`s a replica holds stay its own once it is killed (${TIMEOUT_MS.minimum} to ${TIMEOUT_MS.maximum}); renewed every third of it while it runs, let go at once when it stops, see [Running several replicas](replicas.md)`,
    },
  }),
  // Up to 10 minutes: the longest a latency fault may hold a response.
  shutdown_grace_ms: setting(Type.Integer({ minimum: 0, maximum: 600_000 }), {
    default: 5000,
    docs: { meaning: "after SIGTERM/SIGINT (or `close()`), connections still open are cut and the process exits" },
  }),
};
