// sendmock proxy in front of a stand-in service: each exchange relayed and judged against the contract, in the library and on the command line.

import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Response as AgentResponse } from "superagent";
import request from "supertest";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createSendMock, type SendMock, type SendMockOptions } from "../../src/index.js";
import { CLI, runCli } from "../support/cli-process.js";
import { startSpecService } from "../support/spec-service.js";
import { aSendRequest, bearer, expectContract } from "../support/helpers.js";

const SECRET_KEY = "sk_live_proxy_secret_7f3a";

interface UpstreamReply {
  status?: number;
  headers?: Record<string, string>;
  body?: string;
}

interface Seen {
  headers: IncomingHttpHeaders;
  body: string;
  url: string | undefined;
}

/** A stand-in for the real service whose next responses the test decides. */
let upstream: Server;
let upstreamUrl: string;
let reply: UpstreamReply = {};
let seen: Seen[] = [];

const json = (value: unknown): UpstreamReply => ({ headers: { "content-type": "application/json" }, body: JSON.stringify(value) });
const accepted = (id = "up_123"): UpstreamReply => json({ success: true, message_id: id, status: "queued" });

beforeAll(async () => {
  upstream = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      seen.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8"), url: req.url });
      res.writeHead(reply.status ?? 200, reply.headers ?? {});
      res.end(reply.body ?? "");
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => upstream.close(() => resolve())));

beforeEach(() => {
  reply = accepted();
  seen = [];
});

const proxies: SendMock[] = [];
afterAll(async () => Promise.all(proxies.map((mock) => mock.close())));

/**
 * A proxy judging by sendmock's own contract: the stand-in's flaws here are departures from
 * openapi/send.yaml. The published contract, the default, is tried in proxy-published.test.ts.
 */
async function aProxy(proxy: { strict?: boolean; timeoutMs?: number; target?: string } = {}, options: SendMockOptions = {}): Promise<SendMock> {
  const mock = await createSendMock({ watchTemplates: false, ...options, proxy: { target: upstreamUrl, contract: "sendmock", ...proxy } });
  proxies.push(mock);
  return mock;
}

/** Keeps the text of any response and parses it when it is JSON, since some responses here are meant not to be. */
function lenientJson(res: AgentResponse, done: (error: Error | null, body: unknown) => void): void {
  let text = "";
  res.setEncoding("utf8");
  res.on("data", (chunk: string) => (text += chunk));
  res.on("end", () => {
    res.text = text;
    try {
      done(null, JSON.parse(text));
    } catch {
      done(null, {});
    }
  });
}

function send(mock: SendMock, body: unknown = aSendRequest()) {
  return request(mock.app).post("/send").set(bearer(SECRET_KEY)).set("Content-Type", "application/json").parse(lenientJson).send(JSON.stringify(body));
}

async function journal(mock: SendMock) {
  const response = await request(mock.app).get("/_mock/requests").expect(200);
  return { text: response.text, entries: (response.body as { requests: { violations: { path: string }[]; [key: string]: unknown }[] }).requests };
}

describe("sendmock proxy", () => {
  it("forwards a valid send unchanged, passes the answer back, journals it and captures the message with the service's id", async () => {
    const mock = await aProxy();
    const body = JSON.stringify(aSendRequest());
    const response = await request(mock.app).post("/send").set(bearer(SECRET_KEY)).set("Content-Type", "application/json").send(body);

    expect(response.status).toBe(200);
    expect(response.body).toEqual({ success: true, message_id: "up_123", status: "queued" });
    expect(response.headers["x-sendmock-violations"]).toBeUndefined();
    expect(seen).toHaveLength(1);
    expect(seen[0]?.url).toBe("/send");
    expect(seen[0]?.body).toBe(body);
    expect(seen[0]?.headers.authorization).toBe(`Bearer ${SECRET_KEY}`);
    expect(seen[0]?.headers["content-type"]).toBe("application/json");

    const { text, entries } = await journal(mock);
    expect(entries[0]).toMatchObject({
      status: 200,
      error_code: null,
      violations: [],
      message_id: "up_123",
      api_key_hint: "7f3a",
      to: "ada@example.com",
      template_id: "welcome",
    });
    const message = await request(mock.app).get("/_mock/messages/up_123").expect(200);
    expect(message.body).toMatchObject({
      id: "up_123",
      to: "ada@example.com",
      subject: "Welcome to Analytical Engines, Ada!",
      api_key_hint: "7f3a",
      warnings: [],
    });
    expect((message.body as { html: string }).html).toContain("https://app.example.com/login");
    const messages = await request(mock.app).get("/_mock/messages").expect(200);
    for (const shown of [text, messages.text]) expect(shown).not.toContain(SECRET_KEY);
  });

  it("captures a send whose template is not local without rendering it, and with a shape b id", async () => {
    reply = json({ status: "success", message: "queued", email_id: "em_9" });
    const mock = await aProxy();
    await send(mock, aSendRequest({ template_id: "remote-only", subject: "Hello" })).expect(200);
    const message = await mock.outbox.get("em_9");
    expect(message).toMatchObject({
      template_id: "remote-only",
      subject: "Hello",
      html: null,
      text: null,
      warnings: ["rendered by the upstream service; no local template remote-only"],
    });
  });

  it.each([
    ["a success without message_id", json({ success: true, status: "queued" }), "/response/body/message_id"],
    ["an error without code", { ...json({ success: false, error: { message: "nope" } }), status: 422 }, "/response/body/error/code"],
    ["a 200 that is not JSON", { headers: { "content-type": "application/json" }, body: "<html>oops" }, "/response/body"],
  ])("passes on %s with X-Sendmock-Violations naming the /response pointers", async (_name, upstreamReply, pointer) => {
    reply = upstreamReply;
    const mock = await aProxy();
    const response = await send(mock);
    expect(response.status).toBe(upstreamReply.status ?? 200);
    expect(response.text).toBe(upstreamReply.body);
    expect(response.headers["x-sendmock-violations"]).toMatch(/^1 violation: \/response/);
    expect(response.headers["x-sendmock-violations"]).toContain(pointer);
    const { entries } = await journal(mock);
    expect(entries[0]?.violations.map((violation) => violation.path)).toEqual([pointer]);
  });

  it.each(["a", "b"] as const)("with strict, answers a broken answer with 502 contract_violation in shape %s", async (shape) => {
    reply = json({ success: true, status: "queued" });
    const mock = await aProxy({ strict: true }, { responseShape: shape });
    const response = await send(mock);
    expect(response.status).toBe(502);
    expect(response.headers["x-sendmock-error-code"]).toBe("contract_violation");
    expect(response.headers["x-sendmock-violations"]).toContain("/response/body/message_id");
    const message = shape === "a" ? (response.body as { error: { message: string } }).error.message : (response.body as { message: string }).message;
    expect(message).toContain("/response/body/message_id message_id is required");
    if (shape === "a") expect(response.body).toMatchObject({ success: false, error: { code: "contract_violation" } });
    else expect(response.body).toMatchObject({ status: "error" });
    await expectContract({ status: response.status, headers: response.headers, body: response.body });
    const { entries } = await journal(mock);
    expect(entries[0]).toMatchObject({ status: 502, error_code: "contract_violation", message_id: null });
    expect(await mock.outbox.list()).toMatchObject({ total: 0 });
  });

  it("with strict, still passes on a conforming answer to a request that breaks the contract", async () => {
    reply = { ...json({ success: false, error: { code: "invalid_recipient", message: "bad to" } }), status: 422 };
    const mock = await aProxy({ strict: true });
    const response = await send(mock, aSendRequest({ to: "not-an-address" }));
    expect(response.status).toBe(422);
    const { entries } = await journal(mock);
    expect(entries[0]).toMatchObject({ error_code: "invalid_recipient", error_message: "bad to" });
  });

  it("forwards a request that breaks the contract and reports its violation, and the service's 200 to it as negative_data_rejection", async () => {
    const mock = await aProxy();
    const response = await send(mock, aSendRequest({ to: "not-an-address" }));
    expect(response.status).toBe(200);
    expect(seen).toHaveLength(1);
    const accepted = 'negative_data_rejection: a request the contract forbids (/to must match format "email") was not refused (expected 4xx, got 200)';
    expect(response.headers["x-sendmock-violations"]).toBe(`2 violations: /to must match format "email"; /response/status ${accepted}`);
    const { entries } = await journal(mock);
    expect(entries[0]?.violations).toEqual([
      { path: "/to", message: 'must match format "email"' },
      { path: "/response/status", message: accepted },
    ]);
    const message = await mock.outbox.get("up_123");
    expect(message?.warnings[0]).toMatch(/the request breaks the contract/);
  });

  it("answers 502 server_error naming the target when the service is down, and journals it", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const target = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const mock = await aProxy({ target });
    const response = await send(mock);
    expect(response.status).toBe(502);
    expect(response.headers["x-sendmock-error-code"]).toBe("server_error");
    expect((response.body as { error: { message: string } }).error.message).toContain(`${target}/send`);
    await expectContract({ status: response.status, headers: response.headers, body: response.body });
    const { entries } = await journal(mock);
    expect(entries[0]).toMatchObject({ status: 502, error_code: "server_error" });
    expect(await send(mock).then((again) => again.status)).toBe(502);
  });

  it("answers 502 server_error when the service does not answer within the timeout", async () => {
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    try {
      const mock = await aProxy({ target: `http://127.0.0.1:${(silent.address() as AddressInfo).port}`, timeoutMs: 200 });
      const response = await send(mock);
      expect(response.status).toBe(502);
      expect((response.body as { error: { message: string } }).error.message).toMatch(/did not answer within 0.2 s/);
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  });

  it("keeps X-Sendmock-Violations within 512 printable characters however many violations there are", async () => {
    const extra = Object.fromEntries(Array.from({ length: 80 }, (_, index) => [`unexpected_property_${index}`, "é"]));
    reply = json({ success: true, message_id: "up_1", status: "queued", ...extra });
    const mock = await aProxy();
    const response = await send(mock);
    const header = String(response.headers["x-sendmock-violations"]);
    expect(header).toMatch(/^80 violations: /);
    expect(header.length).toBeLessThanOrEqual(512);
    expect(header).toMatch(/^[\x20-\x7e]+$/);
    const { entries } = await journal(mock);
    expect(entries[0]?.violations).toHaveLength(80);
  });

  it("refuses a target that is not an http(s) URL", async () => {
    await expect(createSendMock({ proxy: { target: "ftp://example.com" } })).rejects.toThrow(/http or https URL/);
  });
});

describe("sendmock proxy on the command line", () => {
  it("prints its URL, forwards, logs the send as serve does, and exits 0 on SIGTERM", async () => {
    const child = spawn(process.execPath, [CLI, "proxy", "--target", upstreamUrl, "--port", "0"], { stdio: ["ignore", "pipe", "pipe"] });
    try {
      let stdout = "";
      let stderr = "";
      child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
      // "close": once its output has all been read, which the checks of its log below need.
      const exited = new Promise<number | null>((resolve) => child.once("close", resolve));
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.on("data", (chunk: Buffer) => {
          stdout += chunk.toString();
          const match = /http:\/\/127\.0\.0\.1:\d+/.exec(stdout);
          if (match) resolve(match[0]);
        });
        void exited.then((code) => reject(new Error(`exited with ${String(code)}: ${stderr}`)));
      });
      const response = await fetch(`${url}/send`, {
        method: "POST",
        headers: { "Content-Type": "application/json", ...bearer(SECRET_KEY) },
        body: JSON.stringify(aSendRequest()),
      });
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ message_id: "up_123" });
      expect(seen[0]?.headers.authorization).toBe(`Bearer ${SECRET_KEY}`);
      child.kill("SIGTERM");
      expect(await exited).toBe(0);
      expect(stdout).toMatch(/ POST \/send 200 up_123 to=ada@example\.com template_id=welcome key=…\w{4} \d+\.\dms\n/);
      expect(stdout).toContain("checked against the contract published (openapi/service.yaml)");
      expect(stdout + stderr).not.toContain(SECRET_KEY);
    } finally {
      child.kill("SIGKILL");
    }
  });

  it("--contract with a file that is no OpenAPI document with POST /send is a usage error: exit 2, one line naming the problem", async () => {
    const child = spawn(process.execPath, [CLI, "proxy", "--target", upstreamUrl, "--port", "0", "--contract", "no-such-contract.yaml"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once("close", resolve));
    expect(code).toBe(2);
    expect(stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(stderr).toMatch(/^sendmock: --contract: .*no-such-contract\.yaml: .*no such file/);
  });
});

describe("sendmock proxy's log of the named checks", () => {
  it("says on stderr which named check an exchange failed, as check names it: a 5xx is not_a_server_error", async () => {
    const service = await startSpecService("server-error-on-non-ascii-data");
    const running: ChildProcessWithoutNullStreams[] = [];
    try {
      const proxy = runCli(["proxy", "--target", service.url, "--port", "0"], running);
      const url = await new Promise<string>((resolve, reject) => {
        proxy.child.stdout.on("data", () => {
          const match = /http:\/\/127\.0\.0\.1:\d+/.exec(proxy.stdout());
          if (match) resolve(match[0]);
        });
        void proxy.exited.then((code) => reject(new Error(`exited with ${String(code)}: ${proxy.stderr()}`)));
      });
      const response = await fetch(`${url}/send`, {
        method: "POST",
        headers: { "Content-Type": "application/json", ...bearer(SECRET_KEY) },
        body: JSON.stringify({ to: "ada@example.com", template_id: "welcome", data: { name: "Zoë" } }),
      });
      expect(response.status).toBe(500);
      proxy.child.kill("SIGTERM");
      expect(await proxy.exited).toBe(0);
      expect(proxy.stderr()).toContain("POST /send -> 500: not_a_server_error: a server error (expected no 5xx, got 500)");
    } finally {
      for (const child of running) child.kill("SIGKILL");
      await service.close();
    }
  });
});
