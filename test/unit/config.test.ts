// Settings from defaults, config files and options: their values, their one-line errors, keys, proxy targets, binding and respond rules.

import path from "node:path";
import { describe, expect, it } from "vitest";
import { aConfigFile, configErrorOf } from "../support/config-files.js";
import { resolveConfig } from "../../src/config/resolve.js";
import { SHIPPED_TEMPLATES } from "../../src/package-root.js";
import { isLoopbackHost } from "../../src/domain/addresses.js";

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
      sender: "sendmock <no-reply@sendmock.test>",
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
  it("default to a step of 1000 ms, delivered, enabled, 100 events, 8192 bytes of a clicked link", () => {
    expect(resolveConfig({}).lifecycle).toEqual({ stepMs: 1000, defaultOutcome: "delivered", enabled: true, maxEvents: 100, maxLinkBytes: 8192 });
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
    expect(resolveConfig({ lifecycle: { stepMs: 10, maxEvents: 20, maxLinkBytes: 300 } }).lifecycle).toMatchObject({
      stepMs: 10,
      maxEvents: 20,
      maxLinkBytes: 300,
    });
  });
});

describe("bad settings give one line naming the source and the problem (every key: config-errors.test.ts)", () => {
  it("rejects JSON that does not parse, naming the file, the line and the column", async () => {
    const file = await aConfigFile("bad.json", "{ port: 1 }");
    const message = configErrorOf(() => resolveConfig({ config: file }));
    expect(message).toBe(`config file ${file}, line 1, column 3: Expected property name or '}'`);
  });

  it("names a config file that does not exist", () => {
    expect(configErrorOf(() => resolveConfig({ config: "/nowhere/sendmock.yaml" }))).toBe("config file /nowhere/sendmock.yaml: no such file");
  });

  it("names the command line and the flag when a flag is bad", () => {
    expect(configErrorOf(() => resolveConfig({ port: 70000 }, "command line"))).toBe("command line: --port must be at most 65535");
  });
});

describe("keys and tokens", () => {
  it("accepts every character of the Bearer token syntax", () => {
    expect(resolveConfig({ apiKeys: ["Ab0-._~+/=="], adminToken: "tok_en.~+/AB==" }).apiKeys).toEqual(["Ab0-._~+/=="]);
  });

  it("refuses an admin token that cannot be sent, even bound to 0.0.0.0, from options too", () => {
    expect(configErrorOf(() => resolveConfig({ host: "0.0.0.0", adminToken: "        " }))).toMatch(
      /^options: adminToken must be a token that Authorization: Bearer can carry/,
    );
    expect(configErrorOf(() => resolveConfig({ apiKeys: ["key\u00e9-1234"] }))).toMatch(/^options: apiKeys\[0\] must be a token/);
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

    expect(configErrorOf(() => resolveConfig({ config: file }))).toContain("faults[0]: body is 19 bytes, more than body_limit (10)");
  });
});
