import { mkdtemp, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, resolveConfig, SHIPPED_TEMPLATES } from "../../src/config.js";
import { isLoopbackHost } from "../../src/domain/addresses.js";

async function aConfigFile(name: string, contents: string): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "sendmock-config-"));
  const file = path.join(dir, name);
  await writeFile(file, contents);
  return file;
}

function configErrorOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error("expected a ConfigError");
}

describe("defaults", () => {
  it("serves the shipped templates on 127.0.0.1:4010 in shape a", () => {
    const config = resolveConfig({});
    expect(config).toMatchObject({
      port: 4010,
      host: "127.0.0.1",
      templates: SHIPPED_TEMPLATES,
      responseShape: "a",
      apiKeys: null,
      strictData: false,
      rateLimit: null,
      faults: [],
      capacity: 10_000,
      bodyLimit: "1mb",
      bodyLimitBytes: 1024 * 1024,
      statusCodes: {},
      seed: null,
      allowFaultHeader: true,
      allowMagicRecipients: true,
      adminToken: null,
      corsOrigins: [],
      headersTimeoutMs: 20_000,
      requestTimeoutMs: 120_000,
      keepAliveTimeoutMs: 5_000,
      maxHeaderBytes: 16_384,
    });
  });
});

describe("config files", () => {
  it("reads every key of a YAML file, in snake_case", async () => {
    const file = await aConfigFile(
      "sendmock.yaml",
      [
        "port: 5050",
        "host: localhost",
        "templates: ./mail",
        "response_shape: b",
        "api_keys: [key-one-aaaa, key-two-bbbb]",
        "strict_data: true",
        "rate_limit: { requests: 10, per_seconds: 60 }",
        "faults: [{ fault: server_error, status: 503, times: 1 }]",
        "capacity: 50",
        "body_limit: 200kb",
        "status_codes: { invalid_recipient: 400 }",
        "seed: 42",
        "allow_fault_header: false",
        "allow_magic_recipients: false",
        "admin_token: admin-token-1",
        "cors_origins: [http://localhost:3000]",
        "headers_timeout_ms: 1000",
        "request_timeout_ms: 2000",
        "keep_alive_timeout_ms: 3000",
        "max_header_bytes: 32768",
      ].join("\n"),
    );
    const config = resolveConfig({ config: file });
    expect(config).toMatchObject({
      port: 5050,
      host: "localhost",
      templates: path.join(path.dirname(file), "mail"),
      responseShape: "b",
      apiKeys: ["key-one-aaaa", "key-two-bbbb"],
      strictData: true,
      rateLimit: { requests: 10, perSeconds: 60, burst: 10 },
      faults: [{ fault: "server_error", status: 503, times: 1 }],
      capacity: 50,
      bodyLimitBytes: 200 * 1024,
      statusCodes: { invalid_recipient: 400 },
      seed: 42,
      allowFaultHeader: false,
      allowMagicRecipients: false,
      adminToken: "admin-token-1",
      corsOrigins: ["http://localhost:3000"],
      headersTimeoutMs: 1000,
      requestTimeoutMs: 2000,
      keepAliveTimeoutMs: 3000,
      maxHeaderBytes: 32768,
    });
  });

  it("reads a JSON file the same way", async () => {
    const file = await aConfigFile("sendmock.json", JSON.stringify({ response_shape: "b", rate_limit: { requests: 5, per_seconds: 1, burst: 2 } }));
    expect(resolveConfig({ config: file })).toMatchObject({ responseShape: "b", rateLimit: { requests: 5, perSeconds: 1, burst: 2 } });
  });

  it("lets options and flags win over the file", async () => {
    const file = await aConfigFile("sendmock.yaml", "port: 5050\nresponse_shape: b\ntemplates: ./mail\n");
    const config = resolveConfig({ config: file, port: 0, responseShape: "a", templates: "elsewhere" });
    expect(config).toMatchObject({ port: 0, responseShape: "a", templates: path.resolve("elsewhere") });
  });

  it("accepts an empty file as no settings", async () => {
    const file = await aConfigFile("empty.yaml", "");
    expect(resolveConfig({ config: file }).port).toBe(4010);
  });
});

describe("the lifecycle settings", () => {
  it("default to a step of 1000 ms, delivered, enabled", () => {
    expect(resolveConfig({}).lifecycle).toEqual({ stepMs: 1000, defaultOutcome: "delivered", enabled: true, maxEvents: 100 });
    expect(resolveConfig({}).outcomeRules).toEqual([]);
  });

  it("read lifecycle and outcome_rules from a file in snake_case, and from options in camelCase", async () => {
    const file = await aConfigFile(
      "lifecycle.yaml",
      "lifecycle: { step_ms: 250, default_outcome: bounced, enabled: false }\noutcome_rules: [{ outcome: opened, match: { template_id: welcome } }]",
    );
    const fromFile = resolveConfig({ config: file });
    expect(fromFile.lifecycle).toMatchObject({ stepMs: 250, defaultOutcome: "bounced", enabled: false });
    expect(fromFile.outcomeRules).toEqual([{ outcome: "opened", match: { template_id: "welcome" } }]);
    expect(resolveConfig({ lifecycle: { stepMs: 10, maxEvents: 20 } }).lifecycle).toMatchObject({ stepMs: 10, maxEvents: 20 });
  });
});

describe("bad settings give one line naming the source and the problem", () => {
  it.each([
    ["an unknown key", "colour: blue", "unknown key colour"],
    ["a port out of range", "port: 70000", "port must be <= 65535"],
    ["a response shape that does not exist", "response_shape: c", "response_shape must be equal to one of the allowed values (a, b)"],
    ["an empty api_keys list", "api_keys: []", "api_keys"],
    ["a rate limit without per_seconds", "rate_limit: { requests: 3 }", "rate_limit"],
    ["an unknown fault kind", "faults: [{ fault: explode }]", "faults.0.fault"],
    ["a status code for an unknown error code", "status_codes: { teapot: 418 }", "teapot is not an error code"],
    ["a status outside 4xx/5xx", "status_codes: { invalid_recipient: 200 }", "status_codes.invalid_recipient must be >= 400"],
    ["a body limit that is not a size", "body_limit: lots", 'body_limit must be a size such as "1mb"'],
    ["a headers timeout that is not a whole number", "headers_timeout_ms: 1.5", "headers_timeout_ms must be integer"],
    ["a headers timeout of 0, which would turn it off", "headers_timeout_ms: 0", "headers_timeout_ms must be >= 100"],
    ["a request timeout over an hour", "request_timeout_ms: 3600001", "request_timeout_ms must be <= 3600000"],
    ["a keep-alive timeout given as text", "keep_alive_timeout_ms: 5s", "keep_alive_timeout_ms must be integer"],
    ["a header limit too small for an Authorization header", "max_header_bytes: 512", "max_header_bytes must be >= 1024"],
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
    ["a refill period so small the reset would be NaN", "rate_limit: { requests: 1, per_seconds: 1e-320 }", "rate_limit.per_seconds must be >= 0.001"],
    ["a refill period of 1e308 s", "rate_limit: { requests: 1, per_seconds: 1e308 }", "rate_limit.per_seconds must be <= 86400"],
    ["a burst of 1e21", "rate_limit: { requests: 1, per_seconds: 1, burst: 1e21 }", "rate_limit.burst must be <= 1000000"],
    ["a seed beyond 32 bits", "seed: 1e21", "seed"],
    ["max_rules of 0", "max_rules: 0", "max_rules must be >= 1"],
    ["max_bytes that is not a size", "max_bytes: lots", 'max_bytes must be a size such as "64mb"'],
    ["max_bytes under a megabyte", "max_bytes: 1kb", "max_bytes must be a size of at least 1MB"],
    ["a redis timeout of 0", "redis_timeout_ms: 0", "redis_timeout_ms must be >= 100"],
    ["a shutdown grace over 10 minutes", "shutdown_grace_ms: 600001", "shutdown_grace_ms must be <= 600000"],
    [
      "an admin token of spaces, which no Authorization header can carry",
      'admin_token: "        "',
      "admin_token must be a token that Authorization: Bearer can carry",
    ],
    ["an API key with a space", 'api_keys: ["a b"]', "api_keys.0 must be a token that Authorization: Bearer can carry"],
    [
      "a fault glob over 1024 characters",
      `faults: [{ fault: server_error, match: { to: "${"a".repeat(1025)}" } }]`,
      "faults.0.match.to must NOT have more than 1024 characters",
    ],
    ["an unknown outcome in a rule", "outcome_rules: [{ outcome: exploded }]", "outcome_rules.0.outcome must be equal to one of the allowed values"],
    ["a lifecycle step of 0", "lifecycle: { step_ms: 0 }", "lifecycle.step_ms must be >= 1"],
    ["a lifecycle step over a day", "lifecycle: { step_ms: 86400001 }", "lifecycle.step_ms must be <= 86400000"],
    ["an unknown default outcome", "lifecycle: { default_outcome: lost }", "lifecycle.default_outcome must be equal to one of the allowed values"],
    ["an unknown lifecycle key", "lifecycle: { speed: 2 }", "unknown key lifecycle.speed"],
    [
      "more outcome rules than max_rules",
      "max_rules: 1\noutcome_rules: [{ outcome: bounced }, { outcome: opened }]",
      "2 outcome rules, more than max_rules (1)",
    ],
    ["a list instead of a mapping", "- port: 1", "must be a mapping of settings, not a list"],
    ["YAML that does not parse", "port: [1, 2", "config file"],
  ])("rejects %s", async (_case, yaml, expected) => {
    const file = await aConfigFile("bad.yaml", yaml);
    const message = configErrorOf(() => resolveConfig({ config: file }));
    expect(message).toContain(file);
    expect(message).toContain(expected);
    expect(message).not.toContain("\n");
  });

  it("rejects JSON that does not parse, naming the file", async () => {
    const file = await aConfigFile("bad.json", "{ port: 1 }");
    const message = configErrorOf(() => resolveConfig({ config: file }));
    expect(message).toMatch(new RegExp(`^config file ${file.replaceAll("\\", "\\\\")}: .+`));
  });

  it("names a config file that does not exist", () => {
    expect(configErrorOf(() => resolveConfig({ config: "/nowhere/sendmock.yaml" }))).toBe("config file /nowhere/sendmock.yaml: no such file");
  });

  it("names the options when a flag or option is bad", () => {
    expect(configErrorOf(() => resolveConfig({ capacity: 0 }, "command line"))).toBe("command line: capacity must be >= 1");
  });

  it("names the options when an option puts the request timeout below the file's headers timeout", async () => {
    const file = await aConfigFile("sendmock.yaml", "headers_timeout_ms: 5000\n");
    expect(configErrorOf(() => resolveConfig({ config: file, requestTimeoutMs: 1000 }))).toBe(
      "options: headers_timeout_ms (5000) must not be above request_timeout_ms (1000)",
    );
  });
});

describe("keys and tokens", () => {
  it("accepts every character of the Bearer token syntax", () => {
    expect(resolveConfig({ apiKeys: ["Ab0-._~+/=="], adminToken: "tok_en.~+/AB==" }).apiKeys).toEqual(["Ab0-._~+/=="]);
  });

  it("refuses an admin token that cannot be sent, even bound to 0.0.0.0, from options too", () => {
    expect(configErrorOf(() => resolveConfig({ host: "0.0.0.0", adminToken: "        " }))).toMatch(
      /^options: admin_token must be a token that Authorization: Bearer can carry/,
    );
    expect(configErrorOf(() => resolveConfig({ apiKeys: ["key\u00e9-1234"] }, "command line"))).toMatch(/^command line: api_keys.0 must be a token/);
  });
});

describe("proxy targets", () => {
  it("refuses a target holding credentials without printing the password", () => {
    const message = configErrorOf(() => resolveConfig({ proxy: { target: "http://user:s3cret-pw@127.0.0.1:9/v1" } }));
    expect(message).toContain("the proxy target must not hold credentials");
    expect(message).not.toContain("s3cret-pw");
    expect(message).not.toContain("\n");
  });
});

describe("binding beyond loopback", () => {
  it("is refused without admin_token", () => {
    expect(configErrorOf(() => resolveConfig({ host: "0.0.0.0" }))).toMatch(/refusing to listen on 0\.0\.0\.0 without admin_token/);
  });

  it("is allowed with admin_token", () => {
    expect(resolveConfig({ host: "0.0.0.0", adminToken: "a-long-admin-token" }).host).toBe("0.0.0.0");
  });

  it.each(["127.0.0.1", "127.1.2.3", "localhost", "::1"])("treats %s as loopback", (host) => {
    expect(isLoopbackHost(host)).toBe(true);
  });

  it.each(["0.0.0.0", "10.0.0.1", "::", "example.com"])("treats %s as reachable from outside", (host) => {
    expect(isLoopbackHost(host)).toBe(false);
  });
});

describe("respond rules in the config", () => {
  const RESPOND_YAML = [
    "faults:",
    "  - fault: respond",
    "    status: 429",
    "    headers: { Retry-After: 'Wed, 21 Oct 2026 07:28:00 GMT', X-Sendmock-Error-Code: rate_limited }",
    "    body: { success: false, error: { code: rate_limited, message: Slow down }, retryAfterHint: later }",
  ].join("\n");
  const RESPOND_RULE = {
    fault: "respond",
    status: 429,
    headers: { "Retry-After": "Wed, 21 Oct 2026 07:28:00 GMT", "X-Sendmock-Error-Code": "rate_limited" },
    body: { success: false, error: { code: "rate_limited", message: "Slow down" }, retryAfterHint: "later" },
  } as const;

  it("keeps a respond rule's headers and body as written, in a file and in the faults option: they are the answer's, not settings", async () => {
    const file = await aConfigFile("sendmock.yaml", RESPOND_YAML);

    expect(resolveConfig({ config: file }).faults).toEqual([RESPOND_RULE]);
    expect(resolveConfig({ faults: [RESPOND_RULE] }).faults).toEqual([RESPOND_RULE]);
  });

  it("rejects a respond rule whose body is over body_limit, naming the rule and the limit", async () => {
    const file = await aConfigFile("sendmock.yaml", `body_limit: 10b\nfaults: [{ fault: respond, status: 200, body: "more than ten bytes" }]`);

    expect(configErrorOf(() => resolveConfig({ config: file }))).toContain("faults.0: body is 19 bytes, more than body_limit (10)");
  });
});
