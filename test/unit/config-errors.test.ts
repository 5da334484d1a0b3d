// Every bad setting stops the start with one line naming where it came from and the key at fault,
// in words, spelled as its user wrote it: snake_case in a file, camelCase in options, flags.

import { describe, expect, it } from "vitest";
import { aConfigFile, configErrorOf } from "../support/config-files.js";
import { resolveConfig, type SendMockOptions } from "../../src/config/resolve.js";
import type { OptionsSource } from "../../src/config/check.js";
import { ERROR_CODES } from "../../src/errors.js";
import { FAULT_KINDS, MESSAGE_EVENT_TYPES, OUTCOMES } from "../../src/wire.js";

const TOKEN_RULE = "must be a token that Authorization: Bearer can carry: letters, digits and - . _ ~ + / only (then = padding), no spaces";
const FAULT_KIND_LIST = FAULT_KINDS.join(", ");

describe("a bad config file names the file and the key, in words", () => {
  it.each([
    ["an unknown key", "colour: blue", "unknown key colour"],
    ["a misspelt key", "rate_limt: { requests: 1, per_seconds: 1 }", "unknown key rate_limt (did you mean rate_limit?)"],
    ["a port out of range", "port: 70000", "port must be at most 65535"],
    ["a port given as text", 'port: "4010x"', "port must be a whole number"],
    ["an empty host", 'host: ""', "host must not be empty"],
    ["an empty templates folder", 'templates: ""', "templates must not be empty"],
    ["a response shape that does not exist", "response_shape: c", "response_shape must be a or b"],
    ["an empty api_keys list", "api_keys: []", "api_keys must list at least one key"],
    ["an empty API key", 'api_keys: [""]', "api_keys[0] must not be empty"],
    ["an API key with a space", 'api_keys: [good-key-1, "a b"]', `api_keys[1] ${TOKEN_RULE}`],
    ["api_keys given as one string", "api_keys: test-key-1234", "api_keys must be a list"],
    ["strict_data given as text", "strict_data: yes please", "strict_data must be true or false"],
    ["a rate limit without per_seconds", "rate_limit: { requests: 2 }", "rate_limit.per_seconds is required"],
    ["a rate limit with a misspelt key", "rate_limit: { requests: 2, per_second: 1 }", "rate_limit: unknown key per_second (did you mean per_seconds?)"],
    ["a rate limit of zero requests", "rate_limit: { requests: 0, per_seconds: 1 }", "rate_limit.requests must be at least 1"],
    ["a refill period so small the reset would be NaN", "rate_limit: { requests: 1, per_seconds: 1e-320 }", "rate_limit.per_seconds must be at least 0.001"],
    ["a refill period of 1e308 s", "rate_limit: { requests: 1, per_seconds: 1e308 }", "rate_limit.per_seconds must be at most 86400"],
    ["a burst of 1e21", "rate_limit: { requests: 1, per_seconds: 1, burst: 1e21 }", "rate_limit.burst must be at most 1000000"],
    ["a burst that is not whole", "rate_limit: { requests: 1, per_seconds: 1, burst: 1.5 }", "rate_limit.burst must be a whole number"],
    ["a rate limit given as a number", "rate_limit: 5", "rate_limit must be a mapping"],
    ["an unknown outcome in a rule", "outcome_rules: [{ outcome: exploded }]", `outcome_rules[0].outcome must be one of ${OUTCOMES.join(", ")}`],
    ["a lifecycle step of 0", "lifecycle: { step_ms: 0 }", "lifecycle.step_ms must be at least 1"],
    ["a lifecycle step over a day", "lifecycle: { step_ms: 86400001 }", "lifecycle.step_ms must be at most 86400000"],
    ["an unknown default outcome", "lifecycle: { default_outcome: lost }", `lifecycle.default_outcome must be one of ${OUTCOMES.join(", ")}`],
    ["a misspelt lifecycle key", "lifecycle: { step: 2 }", "lifecycle: unknown key step (did you mean step_ms?)"],
    ["a clicked link cut below 256 bytes", "lifecycle: { max_link_bytes: 100 }", "lifecycle.max_link_bytes must be at least 256"],
    [
      "more outcome rules than max_rules",
      "max_rules: 1\noutcome_rules: [{ outcome: bounced }, { outcome: opened }]",
      "2 outcome rules, more than max_rules (1)",
    ],
    ["webhooks given as a mapping", "webhooks: { url: http://127.0.0.1:3000/hooks }", "webhooks must be a list"],
    ["a webhook without its URL", "webhooks: [{ events: [message.bounced] }]", "webhooks[0].url is required"],
    [
      "a webhook URL that is not http(s)",
      "webhooks: [{ url: ftp://127.0.0.1/hooks }]",
      'webhooks[0].url must be an http or https URL, got "ftp://127.0.0.1/hooks"',
    ],
    [
      "a webhook event type that does not exist",
      "webhooks: [{ url: http://127.0.0.1:3000/hooks, events: [message.lost] }]",
      `webhooks[0].events[0] must be one of ${MESSAGE_EVENT_TYPES.join(", ")}`,
    ],
    [
      "a webhook secret without whsec_",
      "webhooks: [{ url: http://127.0.0.1:3000/hooks, secret: hunter2 }]",
      'webhooks[0].secret must be "whsec_" then the base64 of a key of 24 to 64 bytes (as the Standard Webhooks specification says), such as whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    ],
    [
      "a misspelt webhook key",
      "webhooks: [{ url: http://127.0.0.1:3000/hooks, duplicates: true }]",
      "webhooks[0]: unknown key duplicates (did you mean duplicate?)",
    ],
    [
      "more webhooks than max_rules",
      "max_rules: 1\nwebhooks: [{ url: http://127.0.0.1/a }, { url: http://127.0.0.1/b }]",
      "2 webhooks, more than max_rules (1)",
    ],
    ["a webhook timeout of 0", "webhook_timeout_ms: 0", "webhook_timeout_ms must be at least 1"],
    ["webhook retries given as one number", "webhook_retry_ms: 1000", "webhook_retry_ms must be a list"],
    ["a webhook retry delay that is negative", "webhook_retry_ms: [1000, -5]", "webhook_retry_ms[1] must be at least 0"],
    ["max_webhook_deliveries of 0", "max_webhook_deliveries: 0", "max_webhook_deliveries must be at least 1"],
    ["an idempotency TTL of 0", "idempotency_ttl_s: 0", "idempotency_ttl_s must be at least 1"],
    ["an idempotency TTL in words", "idempotency_ttl_s: a day", "idempotency_ttl_s must be a whole number"],
    ["max_idempotency_keys of 0", "max_idempotency_keys: 0", "max_idempotency_keys must be at least 1"],
    ["faults given as a mapping", "faults: { fault: latency }", "faults must be a list"],
    ["an unknown fault kind", "faults: [{ fault: explode }]", `faults[0].fault must be one of ${FAULT_KIND_LIST}`],
    ["a fault rule without its kind", "faults: [{ times: 1 }]", "faults[0].fault is required"],
    ["a fault parameter cut short", "faults: [{ fault: latency, delay: 5 }]", "faults[0]: unknown key delay (did you mean delay_ms?)"],
    [
      "a server_error status that is not one",
      "faults: [{ fault: server_error, status: 418 }]",
      "faults[0]: status of server_error must be one of 500, 502, 503, 504",
    ],
    [
      "a parameter of another fault kind",
      "faults: [{ fault: rate_limit, status: 503 }]",
      "faults[0]: status does not apply to the fault rate_limit (it takes retry_after_s)",
    ],
    [
      "a fault glob over 1024 characters",
      `faults: [{ fault: server_error, match: { to: "${"a".repeat(1025)}" } }]`,
      "faults[0].match.to must be at most 1024 characters",
    ],
    ["more fault rules than max_rules", "max_rules: 1\nfaults: [{ fault: latency }, { fault: timeout }]", "2 fault rules, more than max_rules (1)"],
    ["a capacity of 0", "capacity: 0", "capacity must be at least 1"],
    ["a body limit that is not a size", "body_limit: lots", 'body_limit must be a size such as "1mb" or "500kb"'],
    ["a body limit of 0 bytes", 'body_limit: "0b"', 'body_limit must be a size of at least 1B, such as "1mb" or "500kb"'],
    [
      "a status code for an unknown error code",
      "status_codes: { teapot: 418 }",
      `status_codes: teapot is not an error code (one of ${ERROR_CODES.join(", ")})`,
    ],
    ["a status outside 4xx/5xx", "status_codes: { invalid_recipient: 200 }", "status_codes.invalid_recipient must be at least 400"],
    ["a seed that is not whole", "seed: 1.5", "seed must be a whole number"],
    ["a seed beyond 32 bits", "seed: 1e21", "seed must be at most 4294967295"],
    ["a seed given as text", "seed: lucky", "seed must be a whole number"],
    ["allow_fault_header given as text", "allow_fault_header: no thanks", "allow_fault_header must be true or false"],
    ["allow_magic_recipients given as a number", "allow_magic_recipients: 0", "allow_magic_recipients must be true or false"],
    ["an admin token too short", "admin_token: short", "admin_token must be at least 8 characters"],
    ["an admin token of spaces, which no Authorization header can carry", 'admin_token: "        "', `admin_token ${TOKEN_RULE}`],
    ["cors_origins given as one string", "cors_origins: http://localhost:3000", "cors_origins must be a list"],
    ["an empty allowed host", 'allowed_hosts: [""]', "allowed_hosts[0] must not be empty"],
    ["a headers timeout that is not a whole number", "headers_timeout_ms: 1.5", "headers_timeout_ms must be a whole number"],
    ["a headers timeout of 0, which would turn it off", "headers_timeout_ms: 0", "headers_timeout_ms must be at least 100"],
    ["a request timeout over an hour", "request_timeout_ms: 3600001", "request_timeout_ms must be at most 3600000"],
    ["a keep-alive timeout given as text", "keep_alive_timeout_ms: 5s", "keep_alive_timeout_ms must be a whole number"],
    ["a header limit too small for an Authorization header", "max_header_bytes: 512", "max_header_bytes must be at least 1024"],
    [
      "a headers timeout above the request timeout",
      "headers_timeout_ms: 30000\nrequest_timeout_ms: 20000",
      "headers_timeout_ms (30000) must not be above request_timeout_ms (20000)",
    ],
    [
      "a headers timeout above the default request timeout",
      "headers_timeout_ms: 130000",
      "headers_timeout_ms (130000) must not be above request_timeout_ms (120000)",
    ],
    ["a store that does not exist", "store: disk", "store must be memory or redis"],
    ["the redis store without a URL", "store: redis", "store redis needs redis_url (or --redis-url, or SENDMOCK_REDIS_URL)"],
    ["a Redis URL that is not one", "redis_url: http://127.0.0.1:6379", "redis_url must be a Redis URL such as redis://127.0.0.1:6379"],
    ["an empty key prefix", 'key_prefix: ""', "key_prefix must not be empty"],
    ["max_bytes that is not a size", "max_bytes: lots", 'max_bytes must be a size such as "64mb" or "500kb", or a number of bytes'],
    ["max_bytes under a megabyte", "max_bytes: 1kb", "max_bytes must be a size of at least 1MB"],
    ["max_page_bytes under 64 KB", "max_page_bytes: 1000", "max_page_bytes must be a size of at least 64KB"],
    ["max_rules of 0", "max_rules: 0", "max_rules must be at least 1"],
    ["max_event_streams of 0", "max_event_streams: 0", "max_event_streams must be at least 1"],
    ["event_buffer_bytes that is not whole", "event_buffer_bytes: 1.5", "event_buffer_bytes must be a whole number"],
    ["a redis timeout of 0", "redis_timeout_ms: 0", "redis_timeout_ms must be at least 100"],
    ["a replica lease under 100 ms", "replica_lease_ms: 99", "replica_lease_ms must be at least 100"],
    ["a shutdown grace over 10 minutes", "shutdown_grace_ms: 600001", "shutdown_grace_ms must be at most 600000"],
    ["a list instead of a mapping", "- port: 1", "must be a mapping of settings, not a list"],
  ])("%s", async (_case, yaml, expected) => {
    const file = await aConfigFile("sendmock.yaml", yaml);

    expect(configErrorOf(() => resolveConfig({ config: file }))).toBe(`config file ${file}: ${expected}`);
  });

  it("names a file that does not parse by line and column, on one line, without quoting the line (it may hold a key)", async () => {
    const file = await aConfigFile("sendmock.yaml", "port: 4010\nrate_limit: [\nstrict_data: true\n");

    expect(configErrorOf(() => resolveConfig({ config: file }))).toBe(
      `config file ${file}, line 3, column 1: Flow sequence in block collection must be sufficiently indented and end with a ]`,
    );
  });

  it("names JSON that does not parse by line and column, without quoting it", async () => {
    const file = await aConfigFile("sendmock.json", '{"port": 4010,\n "api_keys": ["secret-key-1234"] "strict_data": true}');

    expect(configErrorOf(() => resolveConfig({ config: file }))).toBe(`config file ${file}, line 2, column 34: Expected ',' or '}' after property value`);
  });

  it("names a key given twice in a file", async () => {
    const file = await aConfigFile("sendmock.yaml", "port: 4010\nport: 4011\n");

    expect(configErrorOf(() => resolveConfig({ config: file }))).toBe(`config file ${file}, line 2, column 1: Map keys must be unique`);
  });

  it("blames the file, not the options, for a body limit the file sets", async () => {
    const file = await aConfigFile("sendmock.yaml", 'body_limit: "0b"\n');

    expect(configErrorOf(() => resolveConfig({ config: file, port: 0 }, "command line"))).toBe(
      `config file ${file}: body_limit must be a size of at least 1B, such as "1mb" or "500kb"`,
    );
  });
});

describe("bad library options are named in camelCase, as they were passed", () => {
  it.each<[string, SendMockOptions, string]>([
    ["an unknown option", { colour: "blue" } as SendMockOptions, "unknown key colour"],
    ["a misspelt option", { rateLimt: { requests: 1, perSeconds: 1 } } as SendMockOptions, "unknown key rateLimt (did you mean rateLimit?)"],
    ["a rate limit without perSeconds", { rateLimit: { requests: 2 } } as SendMockOptions, "rateLimit.perSeconds is required"],
    [
      "a rate limit with a misspelt key",
      { rateLimit: { requests: 2, perSecond: 1 } } as unknown as SendMockOptions,
      "rateLimit: unknown key perSecond (did you mean perSeconds?)",
    ],
    ["a rate limit of zero requests", { rateLimit: { requests: 0, perSeconds: 1 } }, "rateLimit.requests must be at least 1"],
    ["an empty apiKeys list", { apiKeys: [] }, "apiKeys must list at least one key"],
    ["an empty API key", { apiKeys: [""] }, "apiKeys[0] must not be empty"],
    ["an admin token too short", { adminToken: "short" }, "adminToken must be at least 8 characters"],
    ["a seed that is not whole", { seed: 1.5 }, "seed must be a whole number"],
    ["a response shape that does not exist", { responseShape: "c" } as unknown as SendMockOptions, "responseShape must be a or b"],
    ["a status outside 4xx/5xx", { statusCodes: { invalid_recipient: 200 } }, "statusCodes.invalid_recipient must be at least 400"],
    ["a body limit of 0 bytes", { bodyLimit: "0b" }, 'bodyLimit must be a size of at least 1B, such as "1mb" or "500kb"'],
    [
      "a fault parameter of another kind",
      { faults: [{ fault: "rate_limit", status: 503 }] },
      "faults[0]: status does not apply to the fault rate_limit (it takes retry_after_s)",
    ],
    [
      "a headers timeout above the default request timeout",
      { headersTimeoutMs: 130_000 },
      "headersTimeoutMs (130000) must not be above requestTimeoutMs (120000)",
    ],
    [
      "a webhook URL that is not http(s)",
      { webhooks: [{ url: "file:///etc/passwd" }] },
      'webhooks[0].url must be an http or https URL, got "file:///etc/passwd"',
    ],
    ["a webhook timeout of 0", { webhookTimeoutMs: 0 }, "webhookTimeoutMs must be at least 1"],
    ["a webhook retry delay over a day", { webhookRetryMs: [86_400_001] }, "webhookRetryMs[0] must be at most 86400000"],
    ["maxBytes under a megabyte", { maxBytes: "1kb" }, "maxBytes must be a size of at least 1MB"],
    ["the redis store without a URL", { store: "redis" }, "store redis needs redisUrl (or --redis-url, or SENDMOCK_REDIS_URL)"],
    ["allowFaultHeader given as text", { allowFaultHeader: "no" } as unknown as SendMockOptions, "allowFaultHeader must be true or false"],
  ])("%s", (_case, options, expected) => {
    expect(configErrorOf(() => resolveConfig(options))).toBe(`options: ${expected}`);
  });

  it("names an option that puts the request timeout below the file's headers timeout", async () => {
    const file = await aConfigFile("sendmock.yaml", "headers_timeout_ms: 5000\n");

    expect(configErrorOf(() => resolveConfig({ config: file, requestTimeoutMs: 1000 }))).toBe(
      "options: headersTimeoutMs (5000) must not be above requestTimeoutMs (1000)",
    );
  });
});

describe("bad flags are named as flags", () => {
  it.each<[string, SendMockOptions, string]>([
    ["an empty --host", { host: "" }, "--host must not be empty"],
    ["an empty --templates", { templates: "" }, "--templates must not be empty"],
    ["a --redis-url that is not one", { redisUrl: "http://127.0.0.1:6379" }, "--redis-url must be a Redis URL such as redis://127.0.0.1:6379"],
    ["an empty --key-prefix", { keyPrefix: "" }, "--key-prefix must not be empty"],
    ["--store redis without a URL", { store: "redis" }, "--store redis needs --redis-url (or SENDMOCK_REDIS_URL)"],
    ["a --shape that does not exist", { responseShape: "c" } as unknown as SendMockOptions, "--shape must be a or b"],
  ])("%s", (_case, options, expected) => {
    const source: OptionsSource = "command line";
    expect(configErrorOf(() => resolveConfig(options, source))).toBe(`command line: ${expected}`);
  });
});
