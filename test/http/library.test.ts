// The library as a test file uses it: startSendMock and close, waits, inspecting and resetting, the reference page beside it, and the templates folder.

import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, expectTypeOf, it, vi } from "vitest";
import {
  startSendMock,
  WaitTimeoutError,
  type CapturedMessage,
  type RunningSendMock,
  type SendRequest,
  type SendSuccessA,
  type TemplatesHandle,
} from "../../src/index.js";
import { aRunningMockForThisTest, aSendRequest, bearer } from "../support/helpers.js";

/** What an application under test does: a plain HTTP call to the mocked service. */
async function sendThrough(mock: RunningSendMock, body: SendRequest): Promise<SendSuccessA> {
  const response = await fetch(`${mock.url}/send`, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...bearer() },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as SendSuccessA;
}

describe("startSendMock", () => {
  it("listens on a free port and gives its URL", async () => {
    const mock = await aRunningMockForThisTest();
    expect(mock.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(mock.url).toBe(`http://127.0.0.1:${mock.port}`);
    expect(await (await fetch(`${mock.url}/_mock/health`)).json()).toEqual({ ok: true });
  });

  it("runs many mocks in one process, each with its own outbox", async () => {
    const [first, second] = await Promise.all([aRunningMockForThisTest(), aRunningMockForThisTest({ responseShape: "b" })]);
    await sendThrough(first, aSendRequest({ to: "first@example.com" }));
    expect((await first.outbox.list()).total).toBe(1);
    expect((await second.outbox.list()).total).toBe(0);
    expect(first.settings.current().responseShape).toBe("a");
    expect(second.settings.current().responseShape).toBe("b");
  });

  it("shares compiled contracts between the mocks of a process, but none of their data", async () => {
    const first = await aRunningMockForThisTest();
    const second = await aRunningMockForThisTest({ responseShape: "b", strictData: true });
    await first.faults.add({ fault: "server_error", status: 503 });

    const faulted = await fetch(`${first.url}/send`, {
      method: "POST",
      headers: { "Content-Type": "application/json", ...bearer() },
      body: JSON.stringify(aSendRequest()),
    });
    const strict = await fetch(`${second.url}/send`, {
      method: "POST",
      headers: { "Content-Type": "application/json", ...bearer() },
      body: JSON.stringify(aSendRequest({ data: { ...aSendRequest().data, extra: "x" } })),
    });
    const invalid = await fetch(`${second.url}/send`, {
      method: "POST",
      headers: { "Content-Type": "application/json", ...bearer() },
      body: JSON.stringify({ to: 1 }),
    });

    expect(faulted.status).toBe(503);
    expect(strict.status).toBe(422);
    expect(await strict.json()).toMatchObject({ status: "error" });
    expect(invalid.status).toBe(400);
    expect(await second.faults.list()).toEqual([]);
    expect((await first.journal.list()).requests.map((entry) => entry.status)).toEqual([503]);
    expect((await second.journal.list()).requests.map((entry) => entry.status)).toEqual([400, 422]);
  });
});

/** GET /_mock/health on a keep-alive connection that stays open, idle, after the response. */
async function respondedOnAKeptAliveConnection(mock: RunningSendMock): Promise<{ closed: Promise<void> }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  return new Promise((resolve, reject) => {
    http
      .get(`${mock.url}/_mock/health`, { agent }, (response) => {
        const closed = new Promise<void>((resolveClosed) => response.socket.once("close", () => resolveClosed()));
        response.resume();
        response.once("end", () => resolve({ closed }));
      })
      .once("error", reject);
  });
}

describe("a test that fakes its timers", () => {
  it("still gets its answers, a small send's and a large one's, with every timer faked", async () => {
    const mock = await aRunningMockForThisTest();
    // A large send takes turns of the event loop, and every response waits for the end of its turn.
    const large = aSendRequest({ data: { name: "Ada", company: "x".repeat(100_000), login_url: "https://app.example.com/login" } });
    vi.useFakeTimers();
    try {
      const answers = await Promise.all([sendThrough(mock, aSendRequest({ to: "small@example.com" })), sendThrough(mock, large)]);
      expect(answers.map((answer) => answer.success)).toEqual([true, true]);
    } finally {
      vi.useRealTimers();
    }
    expect((await mock.outbox.list()).total).toBe(2);
  });
});

describe("close", () => {
  it("closes idle keep-alive connections at once: no timer stands between close() and its end", async () => {
    const mock = await startSendMock({ port: 0, watchTemplates: false });
    const connection = await respondedOnAKeptAliveConnection(mock);
    // With timers frozen, a close that waited out a grace period on a timer would never resolve.
    vi.useFakeTimers({ toFake: ["setTimeout", "setInterval"] });
    try {
      await mock.close();
      await connection.closed;
    } finally {
      vi.useRealTimers();
    }
    await expect(fetch(`${mock.url}/_mock/health`)).rejects.toThrow();
  });

  it("answers a request written before close() began, with Connection: close, and keeps its message", async () => {
    const mock = await startSendMock({ port: 0, watchTemplates: false });
    const body = JSON.stringify(aSendRequest());
    let markWritten: () => void = () => undefined;
    const written = new Promise<void>((resolve) => (markWritten = resolve));
    const responded = new Promise<{ status: number | undefined; connection: string | undefined }>((resolve, reject) => {
      const request = http.request(
        `${mock.url}/send`,
        { method: "POST", headers: { "Content-Type": "application/json", "X-Sendmock-Fault": "latency", "X-Sendmock-Fault-Delay": "200", ...bearer() } },
        (response) => {
          response.resume();
          response.once("end", () => resolve({ status: response.statusCode, connection: response.headers.connection }));
        },
      );
      request.once("error", reject);
      request.once("finish", () => markWritten());
      request.end(body);
    });
    await written;
    const closing = mock.close();

    expect(await responded).toEqual({ status: 200, connection: "close" });
    await closing;
    expect((await mock.outbox.stats()).count).toBe(1);
  });
});

describe("outbox.waitFor", () => {
  it("resolves with a message captured after the wait began, as soon as it is captured", async () => {
    const mock = await aRunningMockForThisTest();
    // Past the test's own timeout: a wait that did not end on the capture fails the test.
    const waiting = mock.outbox.waitFor({ to: "late@example.com" }, { timeoutMs: 60_000 });
    const { message_id } = await sendThrough(mock, aSendRequest({ to: "late@example.com" }));
    const message = await waiting;
    expect(message.id).toBe(message_id);
  });

  it("resolves at once with a message captured before the wait", async () => {
    const mock = await aRunningMockForThisTest();
    await sendThrough(mock, aSendRequest({ to: "a@b.test" }));
    const message = await mock.outbox.waitFor({ to: "a@b.test" }, { timeoutMs: 2000 });
    expect(message.subject).toBe("Welcome to Analytical Engines, Ada!");
  });

  it("rejects with a WaitTimeoutError that says what it waited for", async () => {
    const mock = await aRunningMockForThisTest();
    await sendThrough(mock, aSendRequest({ to: "someone-else@example.com" }));
    const waiting = mock.outbox.waitFor({ to: "nobody@example.com" }, { timeoutMs: 50 });
    await expect(waiting).rejects.toBeInstanceOf(WaitTimeoutError);
    await expect(waiting).rejects.toThrow(/to=nobody@example.com.*within 50 ms \(1 captured there\)/);
  });
});

describe("inspecting and resetting from a test", () => {
  it("lists by template, clears the outbox, reads the journal and resets", async () => {
    const mock = await aRunningMockForThisTest();
    await sendThrough(mock, aSendRequest());
    await sendThrough(mock, {
      to: "grace@example.com",
      template_id: "password-reset",
      data: { name: "Grace", company: "Acme", token: "t0k3n", expires_in: "30 minutes" },
    });

    const resets = await mock.outbox.list({ templateId: "password-reset" });
    expect(resets.total).toBe(1);
    expect(resets.messages[0]?.links.some((link) => link.includes("token=t0k3n"))).toBe(true);

    const journal = await mock.journal.list();
    expect(journal.requests.map((entry) => entry.status)).toEqual([200, 200]);

    await mock.outbox.clear();
    expect((await mock.outbox.list()).total).toBe(0);
    expect((await mock.journal.list()).total).toBe(2);

    await mock.reset();
    expect((await mock.journal.list()).total).toBe(0);
  });

  it("exports the wire types", () => {
    expectTypeOf<CapturedMessage["cc"]>().toEqualTypeOf<string[]>();
    expectTypeOf<SendSuccessA["status"]>().toEqualTypeOf<"queued">();
    expectTypeOf<SendRequest>().toHaveProperty("template_id");
  });
});

describe("the library's reference in docs/library.md", () => {
  const librarySection = (): Promise<string> => readFile(fileURLToPath(new URL("../../docs/library.md", import.meta.url)), "utf8");

  it("names every method of every handle of a mock, with what it returns", async () => {
    const mock = await aRunningMockForThisTest();
    const section = await librarySection();
    const handles = {
      outbox: mock.outbox,
      journal: mock.journal,
      faults: mock.faults,
      outcomes: mock.outcomes,
      clock: mock.clock,
      webhooks: mock.webhooks,
      settings: mock.settings,
    };
    const methods = Object.entries(handles).flatMap(([handle, object]) =>
      Object.entries(object as object)
        .filter(([, value]) => typeof value === "function")
        .map(([method]) => `${handle}.${method}(`),
    );
    // The catalog is a class, whose prototype also holds what only the mock calls.
    const catalogMethods = ["get", "list", "onChange", "close"] satisfies (keyof TemplatesHandle)[];
    methods.push(...catalogMethods.map((method) => `templates.${method}(`));

    expect(methods.filter((method) => !section.includes(`\`${method}`))).toEqual([]);
  });

  it("says what journal.list() answers: {requests, total, truncated}", async () => {
    const mock = await aRunningMockForThisTest();
    const section = await librarySection();

    expect(Object.keys(await mock.journal.list()).sort()).toEqual(["requests", "total", "truncated"]);
    expect(section).toContain("| `journal.list({limit})` | `Promise<{requests, total, truncated}>`");
  });
});

describe("templates folder", () => {
  it("applies an edited, an added and a broken template without a restart", async () => {
    const folder = await mkdtemp(path.join(os.tmpdir(), "sendmock-reload-"));
    try {
      await writeFile(path.join(folder, "ping.yaml"), "subject: Ping {who}\ntext: Hello {who}\n");
      const mock = await aRunningMockForThisTest({ templates: folder, watchTemplates: true });
      const ping = { to: "ada@example.com", template_id: "ping", data: { who: "Ada" } };
      await sendThrough(mock, ping);
      expect((await mock.outbox.get("latest"))?.subject).toBe("Ping Ada");

      await writeFile(path.join(folder, "ping.yaml"), "subject: Pong {who}\ntext: Hello {who}\n");
      await writeFile(path.join(folder, "pong.json"), JSON.stringify({ subject: "Pong", text: "Hi {who}" }));
      await writeFile(path.join(folder, "broken.yaml"), "subject: [unclosed\n");
      await vi.waitFor(() => expect(mock.templates.list().map((entry) => entry.id)).toEqual(["broken", "ping", "pong"]), { timeout: 3000 });

      await sendThrough(mock, ping);
      expect((await mock.outbox.get("latest"))?.subject).toBe("Pong Ada");
      await sendThrough(mock, { ...ping, template_id: "pong" });
      const brokenSend = await fetch(`${mock.url}/send`, {
        method: "POST",
        headers: { "Content-Type": "application/json", ...bearer() },
        body: JSON.stringify({ ...ping, template_id: "broken" }),
      });
      expect(brokenSend.status).toBe(422);
      expect(((await brokenSend.json()) as { error: { message: string } }).error.message).toMatch(/Invalid template ID: template "broken" failed to load/);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});
