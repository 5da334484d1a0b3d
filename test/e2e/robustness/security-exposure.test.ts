// What the mock lets out and what a browser may do with it: CORS, API keys kept out of every output, security headers, requests Node's parser refuses, and pages in the developer's browser.

import { describe, expect, it } from "vitest";
import request from "supertest";
import { createSendMock, type SendMockOptions } from "../../../src/index.js";
import { aRunningMockForThisTest, aSendRequest, bearer, expectContract } from "../../support/helpers.js";
import { textLineOf } from "../../../src/commands/log.js";
import { exchange, parseRawResponse, type RawResponse } from "./raw-http.js";
import { postSend, readResponse } from "./security-requests.js";

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
