// What the mock exposes and to whom: the address it binds, the admin token, CORS, API keys
// kept out of every output, security headers, and requests refused before express sees them.

import { readFileSync } from "node:fs";
import { networkInterfaces } from "node:os";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import YAML from "yaml";
import request from "supertest";
import { ConfigError, createSendMock, startSendMock, type RunningSendMock, type SendMockOptions } from "../../../src/index.js";
import { aRunningMockForThisTest, aRunningMock, aSendRequest, bearer, expectContract, sharedMockBuiltBy } from "../../support/helpers.js";
import { textLineOf } from "../../../src/commands/log.js";
import { exchange, parseRawResponse, type RawResponse } from "./raw-http.js";

const ADMIN_TOKEN = "admin-token-7c1e";

/** One running mock for the tests of the enclosing describe: started once, reset before each test, closed at the end. */
function aSharedRunningMock(options: SendMockOptions): () => RunningSendMock {
  return sharedMockBuiltBy(() => aRunningMock(options));
}

async function postSend(url: string, options: { key?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<Response> {
  return fetch(`${url}/send`, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...bearer(options.key), ...options.headers },
    body: JSON.stringify(options.body ?? aSendRequest()),
  });
}

/** Status, headers and the body as text and (when it is JSON) parsed, for assertions and expectContract. */
async function readResponse(response: Response) {
  const text = await response.text();
  const headers = Object.fromEntries(response.headers);
  const body: unknown = headers["content-type"]?.includes("json") ? JSON.parse(text) : text;
  return { status: response.status, headers, body, text };
}

/** The non-loopback IPv4 addresses of this machine, which a server bound to loopback must not respond on. */
function externalAddresses(): string[] {
  return Object.values(networkInterfaces())
    .flatMap((entries) => entries ?? [])
    .filter((entry) => !entry.internal && entry.family === "IPv4")
    .map((entry) => entry.address);
}

async function canConnect(url: string): Promise<boolean> {
  return fetch(url, { signal: AbortSignal.timeout(2_000) }).then(
    () => true,
    () => false,
  );
}

describe("the address it listens on", () => {
  // The CLI's printed http://127.0.0.1:... line is covered by test/e2e/cli.test.ts, the refusal of
  // 0.0.0.0 by the CLI and by resolveConfig in test/e2e/cli.test.ts and test/unit/config.test.ts.

  it("is 127.0.0.1 by default, unreachable from the machine's other addresses", async () => {
    const mock = await aRunningMockForThisTest();

    expect(mock.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await canConnect(`${mock.url}/_mock/health`)).toBe(true);
    for (const address of externalAddresses()) {
      expect(await canConnect(`http://${address}:${mock.port}/_mock/health`), address).toBe(false);
    }
  });

  it("is refused beyond loopback without admin_token, with one line saying why", async () => {
    const refused = startSendMock({ port: 0, host: "0.0.0.0", watchTemplates: false });

    await expect(refused).rejects.toBeInstanceOf(ConfigError);
    await expect(refused).rejects.toThrow(/^refusing to listen on 0\.0\.0\.0 without admin_token: [^\n]+$/);
  });

  it("may be every interface with admin_token, and then the inspection API answers only with the token", async () => {
    const mock = await aRunningMockForThisTest({ host: "0.0.0.0", adminToken: ADMIN_TOKEN });
    const onLoopback = `http://127.0.0.1:${mock.port}`;

    expect(mock.url).toBe(`http://0.0.0.0:${mock.port}`);
    expect((await fetch(`${onLoopback}/_mock/messages`)).status).toBe(401);
    expect((await fetch(`${onLoopback}/_mock/messages`, { headers: bearer(ADMIN_TOKEN) })).status).toBe(200);
    for (const address of externalAddresses()) {
      expect((await fetch(`http://${address}:${mock.port}/_mock/messages`)).status, address).toBe(401);
    }
  });
});

// ---------------------------------------------------------------------------------------------

interface AdminCall {
  method: string;
  /** As in openapi/admin.yaml, `{id}` included. */
  contractPath: string;
}

const ADMIN_METHODS = ["get", "post", "patch", "put", "delete"] as const;

/** Every operation of the inspection API, read from its contract so a new one is covered too. */
function adminCalls(): AdminCall[] {
  const file = fileURLToPath(new URL("../../../openapi/admin.yaml", import.meta.url));
  const contract = YAML.parse(readFileSync(file, "utf8")) as { paths: Record<string, Partial<Record<string, unknown>>> };
  return (
    Object.entries(contract.paths)
      // The inbox page loads without the token (test/http/events.test.ts), and asks for it.
      .filter(([contractPath]) => contractPath.startsWith("/_mock/") && contractPath !== "/_mock/")
      .flatMap(([contractPath, item]) => ADMIN_METHODS.filter((method) => item[method] !== undefined).map((method) => ({ method, contractPath })))
  );
}

/** A request body each call accepts, where it needs one. */
const BODIES: Record<string, unknown> = {
  "patch /_mock/config": { strict_data: true },
  "post /_mock/faults": { fault: "latency", delay_ms: 1 },
  "post /_mock/outcomes": { outcome: "bounced", times: 1 },
  "post /_mock/clock": { advance_ms: 0 },
  "post /_mock/messages/{id}/events": { type: "message.sent" },
  "post /_mock/webhooks": { url: "http://127.0.0.1:9/hooks" },
};

/** The ids a call's path may name. */
interface CallIds {
  faultId: string;
  outcomeId: string;
  webhookId: string;
  deliveryId: string;
}

/** The id a call's path names: a rule of its kind, a webhook or one of its deliveries, a template, else the newest message. */
function idFor(contractPath: string, ids: CallIds): string {
  if (contractPath.startsWith("/_mock/faults")) return ids.faultId;
  if (contractPath.startsWith("/_mock/outcomes")) return ids.outcomeId;
  if (contractPath.startsWith("/_mock/webhooks/deliveries")) return ids.deliveryId;
  if (contractPath.startsWith("/_mock/webhooks")) return ids.webhookId;
  return contractPath.startsWith("/_mock/templates") ? "welcome" : "latest";
}

async function callAdmin(mock: RunningSendMock, call: AdminCall, ids: CallIds, authorization: string | undefined) {
  const body = BODIES[`${call.method} ${call.contractPath}`];
  const controller = new AbortController();
  const response = await fetch(`${mock.url}${call.contractPath.replace("{id}", idFor(call.contractPath, ids))}`, {
    method: call.method.toUpperCase(),
    headers: { ...(authorization !== undefined && { Authorization: authorization }), ...(body !== undefined && { "Content-Type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: controller.signal,
  });
  // The event stream stays open: its status and headers are the response.
  if (response.headers.get("content-type")?.startsWith("text/event-stream")) {
    controller.abort();
    return { status: response.status, headers: Object.fromEntries(response.headers), body: "", text: "" };
  }
  return readResponse(response);
}

/** A webhook (the only one) and an attempt to deliver an event of the newest message to it, refused by a closed port. */
async function aWebhookWithADelivery(mock: RunningSendMock): Promise<{ webhookId: string; deliveryId: string }> {
  for (const webhook of await mock.webhooks.list()) await mock.webhooks.remove(webhook.id);
  const webhook = await mock.webhooks.add({ url: "http://127.0.0.1:9/hooks", events: ["message.complained"] });
  const appended = await fetch(`${mock.url}/_mock/messages/latest/events`, {
    method: "POST",
    headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, "Content-Type": "application/json" },
    body: JSON.stringify({ type: "message.complained" }),
  });
  expect(appended.status).toBe(201);
  await mock.clock.advance(0);
  const [delivery] = await mock.webhooks.deliveries({ webhookId: webhook.id });
  return { webhookId: webhook.id, deliveryId: delivery?.id ?? "" };
}

describe("with admin_token, the inspection API", () => {
  // test/http/admin-access.test.ts checks a list of calls without a token and with a wrong one of the
  // same length; these take every call of the contract, and the tokens a careless compare lets through or trips on.
  // Every test here adds its own rule and sends its own messages, all of which reset clears.
  const shared = aSharedRunningMock({ adminToken: ADMIN_TOKEN });
  const calls = adminCalls();
  const refusals = [
    ["no Authorization header", undefined, "missing_api_key"],
    ["an empty Bearer", "Bearer ", "missing_api_key"],
    ["another scheme with the right token", `Basic ${ADMIN_TOKEN}`, "missing_api_key"],
    ["a wrong token of the same length", `Bearer ${ADMIN_TOKEN.slice(0, -1)}X`, "invalid_api_key"],
    ["the token without its last character", `Bearer ${ADMIN_TOKEN.slice(0, -1)}`, "invalid_api_key"],
    ["the token with a character more", `Bearer ${ADMIN_TOKEN}0`, "invalid_api_key"],
    ["a much longer token", `Bearer ${ADMIN_TOKEN.repeat(40)}`, "invalid_api_key"],
    ["an API key", "Bearer test-key-0001", "invalid_api_key"],
  ] as const;

  it("covers the calls of the contract", () => {
    expect(calls.length).toBeGreaterThanOrEqual(15);
    expect(calls).toContainEqual({ method: "get", contractPath: "/_mock/events" });
    expect(calls).toContainEqual({ method: "delete", contractPath: "/_mock/faults/{id}" });
  });

  it.each(refusals)("answers every call with %s 401 in the contract's shape", async (_case, authorization, code) => {
    const mock = shared();
    const { id: faultId } = await mock.faults.add({ fault: "latency", delay_ms: 1 });
    const { id: outcomeId } = await mock.outcomes.add({ outcome: "bounced" });
    const before = await mock.faults.list();

    for (const call of calls) {
      const response = await callAdmin(mock, call, { faultId, outcomeId, webhookId: "wh_0", deliveryId: "whd_0" }, authorization);
      const where = `${call.method} ${call.contractPath}`;
      expect(response.status, where).toBe(401);
      expect(response.headers["x-sendmock-error-code"], where).toBe(code);
      expect(response.body, where).toEqual({ success: false, error: { code, message: expect.stringMatching(/admin token/i) as unknown } });
      await expectContract(response, { contract: "admin", method: call.method, path: call.contractPath });
    }
    // Nothing was done on the refused calls' behalf.
    expect(await mock.faults.list()).toEqual(before);
  });

  it("answers every call that carries the token", async () => {
    const mock = shared();

    for (const call of calls) {
      // DELETE and reset empty the outbox and the rules, so each call starts from a message and a rule.
      expect((await postSend(mock.url)).status).toBe(200);
      const { id: faultId } = await mock.faults.add({ fault: "latency", delay_ms: 1 });
      const { id: outcomeId } = await mock.outcomes.add({ outcome: "bounced" });
      const { webhookId, deliveryId } = await aWebhookWithADelivery(mock);
      const response = await callAdmin(mock, call, { faultId, outcomeId, webhookId, deliveryId }, `Bearer ${ADMIN_TOKEN}`);
      expect(response.status, `${call.method} ${call.contractPath}: ${response.text}`).toBeLessThan(300);
    }
  });
});

// ---------------------------------------------------------------------------------------------

describe("CORS", () => {
  const APP_ORIGIN = "http://localhost:3000";
  const OTHER_ORIGIN = "https://evil.example";

  async function preflight(url: string, origin: string): Promise<Response> {
    return fetch(url, {
      method: "OPTIONS",
      headers: { Origin: origin, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "authorization, content-type" },
    });
  }

  it("is off by default: no origin is allowed, on a preflight or on an answer", async () => {
    const mock = await aRunningMockForThisTest();

    for (const origin of [APP_ORIGIN, OTHER_ORIGIN, "null"]) {
      const responses = [
        await preflight(`${mock.url}/send`, origin),
        await preflight(`${mock.url}/_mock/messages`, origin),
        await postSend(mock.url, { headers: { Origin: origin } }),
        await fetch(`${mock.url}/_mock/messages`, { headers: { Origin: origin } }),
      ];
      for (const response of responses) {
        expect(response.headers.get("access-control-allow-origin"), `${response.url} from ${origin}`).toBeNull();
        expect(response.headers.get("access-control-allow-credentials")).toBeNull();
      }
    }
  });

  it("with cors_origins, allows those origins and no other", async () => {
    const mock = await aRunningMockForThisTest({ corsOrigins: [APP_ORIGIN] });

    const allowedPreflight = await preflight(`${mock.url}/send`, APP_ORIGIN);
    expect(allowedPreflight.status).toBe(204);
    expect(allowedPreflight.headers.get("access-control-allow-origin")).toBe(APP_ORIGIN);
    expect(allowedPreflight.headers.get("access-control-allow-headers")).toMatch(/authorization/i);
    const allowedSend = await postSend(mock.url, { headers: { Origin: APP_ORIGIN } });
    expect(allowedSend.status).toBe(200);
    expect(allowedSend.headers.get("access-control-allow-origin")).toBe(APP_ORIGIN);

    for (const response of [
      await preflight(`${mock.url}/send`, OTHER_ORIGIN),
      await postSend(mock.url, { headers: { Origin: OTHER_ORIGIN } }),
      await fetch(`${mock.url}/_mock/messages`, { headers: { Origin: OTHER_ORIGIN } }),
    ]) {
      expect(response.headers.get("access-control-allow-origin"), response.url).toBeNull();
    }
  });
});

// ---------------------------------------------------------------------------------------------

describe("API keys", () => {
  // test/http/send-accepted.test.ts checks the outbox, journal, /_mock/config and responses of accepted and
  // refused sends; this follows one key through every output, the event stream and the log included.
  const SECRET_KEY = "sk-live-SECRET-9f8e7d6c5b4a";
  const WRONG_KEY = "sk-live-WRONGKEY-0a1b2c3d";

  /** Reads the event stream in the background until stopped; returns everything it read. */
  async function recordEvents(url: string): Promise<{ text: () => string; stop: () => void }> {
    const controller = new AbortController();
    const response = await fetch(`${url}/_mock/events`, { signal: controller.signal });
    const reader = response.body?.pipeThrough(new TextDecoderStream()).getReader();
    if (!reader) throw new Error("the event stream has no body");
    let text = "";
    const reading = (async () => {
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += chunk.value;
    })();
    reading.catch(() => undefined);
    return { text: () => text, stop: () => controller.abort() };
  }

  it("appear only as their last 4 characters in answers, the inspection API, the event stream and the log", async () => {
    const logLines: string[] = [];
    const mock = await aRunningMockForThisTest({
      apiKeys: [SECRET_KEY],
      rateLimit: { requests: 4, perSeconds: 3600 },
      log: (line) => logLines.push(line),
      // The line `sendmock serve` would print for each send.
      requestLog: { send: (entry) => logLines.push(textLineOf({ time: Date.now(), ...entry })) },
    });
    const events = await recordEvents(mock.url);
    const outputs: string[] = [];
    const keep = async (response: Response) => {
      const read = await readResponse(response);
      outputs.push(JSON.stringify(read.headers), read.text);
      return read;
    };

    const rule = await keep(
      await fetch(`${mock.url}/_mock/faults`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ fault: "server_error", match: { api_key: SECRET_KEY }, times: 1 }),
      }),
    );
    const sends = [
      await keep(await postSend(mock.url, { key: SECRET_KEY })),
      await keep(await postSend(mock.url, { key: SECRET_KEY })),
      await keep(await postSend(mock.url, { key: SECRET_KEY, body: aSendRequest({ template_id: "wellcome" }) })),
      await keep(await postSend(mock.url, { key: SECRET_KEY, body: { ...aSendRequest(), to: 42 } })),
      await keep(await postSend(mock.url, { key: SECRET_KEY })),
      await keep(await postSend(mock.url, { key: WRONG_KEY })),
      await keep(await postSend(mock.url, { headers: { Authorization: `Token ${SECRET_KEY}` } })),
    ];
    const oversized = parseRawResponse(
      await exchange(mock.port, `POST /send HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${SECRET_KEY}\r\nX-Padding: ${"a".repeat(20_000)}\r\n\r\n`),
    );
    outputs.push(JSON.stringify(oversized));

    expect(rule.status).toBe(201);
    expect(sends.map((response) => response.status)).toEqual([500, 200, 422, 400, 429, 401, 401]);
    expect(oversized.status).toBe(431);
    const messageId = (sends[1]?.body as { message_id: string }).message_id;
    for (const path of ["/_mock/requests", "/_mock/messages", `/_mock/messages/${messageId}`, "/_mock/messages/latest", "/_mock/faults", "/_mock/config"]) {
      const response = await keep(await fetch(`${mock.url}${path}`));
      expect(response.status, path).toBe(200);
    }
    // One `request` event per send, each carrying its journal entry, and the captured message.
    await expect.poll(() => events.text().match(/^event: request$/gm)?.length ?? 0).toBe(sends.length);
    events.stop();
    outputs.push(events.text(), ...logLines);

    expect(events.text()).toMatch(/^event: message$/m);
    expect(logLines).toContainEqual(expect.stringMatching(/ POST \/send 500 server_error .*fault=server_error /));
    const everything = outputs.join("\n");
    expect(everything).toContain(`"api_key_hint":"${SECRET_KEY.slice(-4)}"`);
    expect(everything).not.toContain(SECRET_KEY);
    expect(everything).not.toContain("SECRET");
    expect(everything).not.toContain(WRONG_KEY);
    expect(everything).not.toContain("WRONGKEY");
  });
});

// ---------------------------------------------------------------------------------------------

describe("security headers", () => {
  it("the inbox page and a message's HTML carry a Content-Security-Policy, nosniff and no-referrer", async () => {
    const mock = await aRunningMockForThisTest();
    await postSend(mock.url);

    for (const path of ["/_mock/", "/_mock/messages/latest/html"]) {
      const response = await fetch(`${mock.url}${path}`);
      expect(response.status, path).toBe(200);
      expect(response.headers.get("content-type"), path).toMatch(/^text\/html/);
      expect(response.headers.get("content-security-policy"), path).toContain("default-src 'none'");
      expect(response.headers.get("x-content-type-options"), path).toBe("nosniff");
      expect(response.headers.get("referrer-policy"), path).toBe("no-referrer");
    }
  });

  it("every API answer carries X-Content-Type-Options: nosniff, errors included", async () => {
    const mock = await aRunningMockForThisTest();
    const responses = [
      await postSend(mock.url),
      await postSend(mock.url, { key: "" }),
      await postSend(mock.url, { body: { to: "ada@example.com" } }),
      await fetch(`${mock.url}/_mock/messages`),
      await fetch(`${mock.url}/_mock/messages/msg_nope`),
      await fetch(`${mock.url}/_mock/ui/app.js`),
      await fetch(`${mock.url}/openapi.yaml`),
      await fetch(`${mock.url}/nowhere`),
    ];

    expect(responses.map((response) => response.status)).toEqual([200, 401, 400, 200, 404, 200, 200, 404]);
    for (const response of responses) expect(response.headers.get("x-content-type-options"), response.url).toBe("nosniff");
  });
});

// ---------------------------------------------------------------------------------------------

describe("requests Node's parser refuses", () => {
  const headersOf = (paddingBytes: number, extra = "") =>
    `POST /send HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAuthorization: Bearer test-key-0001\r\nX-Padding: ${"a".repeat(paddingBytes)}\r\n${extra}`;

  async function expectRefused(response: RawResponse, status: number, message: RegExp): Promise<void> {
    const body = JSON.parse(response.body) as unknown;
    await expectContract({ ...response, body });
    expect(response.status).toBe(status);
    expect(response.headers["x-sendmock-error-code"]).toBe("invalid_request");
    expect(response.headers["x-content-type-options"]).toBe("nosniff");
    expect(response.headers.connection).toBe("close");
    expect(body).toEqual({ success: false, error: { code: "invalid_request", message: expect.stringMatching(message) as unknown } });
  }

  it("answers headers over max_header_bytes with 431 in the contract's shape, naming the limit and its knob", async () => {
    const mock = await aRunningMockForThisTest();

    const response = parseRawResponse(await exchange(mock.port, `${headersOf(20_000)}\r\n`));

    await expectRefused(response, 431, /max_header_bytes \(16384 bytes\)/);
    expect((await postSend(mock.url)).status).toBe(200);
  });

  it("answers in shape b when sends answer in shape b", async () => {
    const mock = await aRunningMockForThisTest({ responseShape: "b" });

    const response = parseRawResponse(await exchange(mock.port, `${headersOf(20_000)}\r\n`));

    expect(response.status).toBe(431);
    expect(JSON.parse(response.body)).toEqual({ status: "error", message: expect.stringContaining("max_header_bytes") as unknown });
  });

  it("lets max_header_bytes raise the limit", async () => {
    const mock = await aRunningMockForThisTest({ maxHeaderBytes: 32_768 });
    const body = JSON.stringify(aSendRequest());

    const response = await postSend(mock.url, { headers: { "X-Padding": "a".repeat(20_000) } });
    const refused = parseRawResponse(await exchange(mock.port, `${headersOf(40_000, `Content-Length: ${Buffer.byteLength(body)}\r\n`)}\r\n${body}`));

    expect(response.status).toBe(200);
    await expectRefused(refused, 431, /max_header_bytes \(32768 bytes\)/);
  });

  it.each([
    ["a request line that is not HTTP", "HELLO\r\n\r\n"],
    ["a header name with a space", "GET /_mock/health HTTP/1.1\r\nHost: 127.0.0.1\r\nBad Header: x\r\n\r\n"],
    ["both Content-Length and chunked", "POST /send HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\nabc"],
  ])("answers %s with 400 in the contract's shape", async (_case, raw) => {
    const mock = await aRunningMockForThisTest();

    const response = parseRawResponse(await exchange(mock.port, raw));

    await expectRefused(response, 400, /^Malformed HTTP request: \S/);
    expect((await postSend(mock.url)).status).toBe(200);
  });
});

describe("pages in the developer's browser", () => {
  async function anApp(options: SendMockOptions = {}) {
    const mock = await createSendMock({ watchTemplates: false, ...options });
    return mock;
  }

  it("refuses a Host that is not a loopback name (DNS rebinding), on the inspection API and on /send", async () => {
    const mock = await anApp();
    await request(mock.app).post("/send").set(bearer()).send(aSendRequest());

    for (const call of [request(mock.app).get("/_mock/messages"), request(mock.app).post("/send").set(bearer()).send(aSendRequest())]) {
      const refused = await call.set("Host", "attacker.example:4010");
      expect(refused.status).toBe(403);
      expect(refused.headers["x-sendmock-error-code"]).toBe("invalid_request");
      expect(JSON.stringify(refused.body)).toContain('Host \\"attacker.example\\" is not allowed');
      expect(JSON.stringify(refused.body)).not.toContain("ada@example.com");
    }
    for (const host of ["127.0.0.1:4010", "localhost:4010", "[::1]:4010", "LOCALHOST"]) {
      expect((await request(mock.app).get("/_mock/messages").set("Host", host)).status).toBe(200);
    }
    expect((await mock.outbox.stats()).count).toBe(1);
  });

  it("answers the names listed in allowed_hosts", async () => {
    const mock = await anApp({ allowedHosts: ["mail.localtest.me"] });
    expect((await request(mock.app).get("/_mock/messages").set("Host", "mail.localtest.me:4010")).status).toBe(200);
    expect((await request(mock.app).get("/_mock/messages").set("Host", "other.localtest.me:4010")).status).toBe(403);
  });

  it("refuses a write to /_mock sent from another origin, and changes nothing", async () => {
    const mock = await anApp();
    await request(mock.app).post("/send").set(bearer()).send(aSendRequest());

    const refused = await request(mock.app).post("/_mock/reset").set("Origin", "https://attacker.example");
    expect(refused.status).toBe(403);
    expect(refused.headers["x-sendmock-error-code"]).toBe("invalid_request");
    expect(refused.body).toMatchObject({
      success: false,
      error: { code: "invalid_request", message: expect.stringContaining("https://attacker.example") as unknown },
    });
    const addFault = await request(mock.app).post("/_mock/faults").set("Origin", "null").send({ fault: "server_error" });
    expect(addFault.status).toBe(403);
    expect((await mock.outbox.stats()).count).toBe(1);
    expect(await mock.faults.list()).toEqual([]);
  });

  it("lets the inbox page (same origin), a listed cors origin and non-browser clients write", async () => {
    const mock = await anApp({ corsOrigins: ["http://localhost:3000"] });
    const host = "127.0.0.1:4010";
    expect((await request(mock.app).post("/_mock/reset").set("Host", host).set("Origin", `http://${host}`)).status).toBe(204);
    expect((await request(mock.app).post("/_mock/reset").set("Origin", "http://localhost:3000")).status).toBe(204);
    expect((await request(mock.app).post("/_mock/reset")).status).toBe(204);
    expect((await request(mock.app).get("/_mock/messages").set("Origin", "https://attacker.example")).status).toBe(200);
  });
});
