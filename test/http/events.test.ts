// GET /_mock/events and the inbox page's headers, over a real socket as a browser would use them.

import { once } from "node:events";
import net from "node:net";
import express from "express";
import request from "supertest";
import { afterEach, describe, expect, it } from "vitest";
import { createMemoryDeliveryLog, createMemoryJournal, createMemoryOutbox } from "../../src/stores/memory/index.js";
import { createOpenStreams, streamEvents } from "../../src/http/events.js";
import { startSendMock, type RunningSendMock } from "../../src/index.js";
import { aSendRequest, bearer, expectContract } from "../support/helpers.js";

interface ServerSentEvent {
  event: string;
  data: string;
}

/** Reads a server-sent-events stream until `count` events have come (comments count as `comment`). */
async function readEvents(
  url: string,
  count: number,
  options: { headers?: Record<string, string>; onOpen?: () => Promise<void>; onEvent?: (event: ServerSentEvent) => void } = {},
) {
  const controller = new AbortController();
  const response = await fetch(url, { headers: options.headers, signal: controller.signal });
  const reader = response.body?.pipeThrough(new TextDecoderStream()).getReader();
  if (!reader) throw new Error("no body");
  const events: ServerSentEvent[] = [];
  // A 1.5 MB event comes in some 25 chunks: they are joined only once one holds a line break
  // (a block's end, "\n\n", needs one even when cut between chunks), since searching the text
  // joined at every chunk (which flattens it) was most of this file's CPU.
  let pending: string[] = [];
  let buffer = "";
  const opened = options.onOpen?.();
  while (events.length < count) {
    const { value, done } = await reader.read();
    if (done) break;
    pending.push(value);
    if (!value.includes("\n")) continue;
    buffer += pending.join("");
    pending = [];
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      for (const line of block.split("\n")) {
        if (line.startsWith(":")) events.push({ event: "comment", data: line.slice(1).trim() });
      }
      const event = /^event: (.*)$/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if (event !== undefined && data !== undefined) {
        events.push({ event, data });
        options.onEvent?.({ event, data });
      }
    }
  }
  await opened;
  controller.abort();
  return { response, events };
}

let mock: RunningSendMock | undefined;

afterEach(async () => {
  await mock?.close();
  mock = undefined;
});

async function send(url: string, body: object): Promise<void> {
  await fetch(`${url}/send`, { method: "POST", headers: { "Content-Type": "application/json", ...bearer() }, body: JSON.stringify(body) });
}

describe("GET /_mock/events", () => {
  it("streams the captured message and its journal entry as they happen, then the resets", async () => {
    mock = await startSendMock({ port: 0, watchTemplates: false });
    const { url } = mock;
    const running = mock;
    let stored: unknown;
    const { response, events } = await readEvents(`${url}/_mock/events`, 6, {
      onOpen: async () => {
        await send(url, aSendRequest());
        stored = (await request(url).get("/_mock/messages/latest")).body;
        await fetch(`${url}/_mock/messages`, { method: "DELETE" });
        await fetch(`${url}/_mock/reset`, { method: "POST" });
      },
    });
    expect(response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    const named = events.filter((event) => event.event !== "comment");
    expect(named.map((event) => event.event)).toEqual(["message", "request", "reset", "reset", "reset"]);

    const message = JSON.parse(named[0]?.data ?? "{}") as { id: string };
    expect(message).toEqual(stored);
    expect(JSON.parse(named[1]?.data ?? "{}")).toMatchObject({ status: 200, message_id: message.id });
    expect(named.slice(2).map((event) => JSON.parse(event.data) as unknown)).toEqual([{ scope: "messages" }, { scope: "messages" }, { scope: "all" }]);
    expect((await running.journal.list()).total).toBe(0);
  });

  it("streams rejected requests too, with their violations", async () => {
    mock = await startSendMock({ port: 0, watchTemplates: false });
    const { url } = mock;
    const { events } = await readEvents(`${url}/_mock/events`, 2, { onOpen: () => send(url, aSendRequest({ to: "not-an-address" })) });
    const entry = JSON.parse(events.find((event) => event.event === "request")?.data ?? "{}") as Record<string, unknown>;
    expect(entry).toMatchObject({ status: 422, error_code: "invalid_recipient", violations: [{ path: "/to", message: "to is not a valid email address" }] });
  });

  it("needs the admin token when one is set", async () => {
    mock = await startSendMock({ port: 0, watchTemplates: false, adminToken: "admin-token-1" });
    const refused = await fetch(`${mock.url}/_mock/events`);
    expect(refused.status).toBe(401);
    const { response } = await readEvents(`${mock.url}/_mock/events`, 1, { headers: { Authorization: "Bearer admin-token-1" } });
    expect(response.status).toBe(200);
  });

  it("ends open streams when the mock closes", async () => {
    mock = await startSendMock({ port: 0, watchTemplates: false });
    const response = await fetch(`${mock.url}/_mock/events`);
    const closing = mock.close();
    mock = undefined;
    await closing;
    await expect(response.text()).resolves.toContain(": connected");
  });
});

describe("the event stream on its own", () => {
  it("sends heartbeat comments and lets go of its subscriptions when the client leaves", async () => {
    const outbox = createMemoryOutbox({ capacity: 10 });
    const journal = createMemoryJournal({ capacity: 10 });
    const deliveries = createMemoryDeliveryLog(10);
    let subscribed = 0;
    const counted = (unsubscribe: () => void) => {
      subscribed += 1;
      return () => {
        subscribed -= 1;
        unsubscribe();
      };
    };
    const app = express().get(
      "/events",
      streamEvents({
        outbox: { ...outbox, onCapture: (listener) => counted(outbox.onCapture(listener)), onClear: (listener) => counted(outbox.onClear(listener)) },
        journal: { ...journal, onRecord: (listener) => counted(journal.onRecord(listener)) },
        webhooks: { onDelivery: (listener) => counted(deliveries.onRecord(listener)) },
        onReset: () => counted(() => undefined),
        shutdown: new AbortController().signal,
        openStreams: createOpenStreams(10),
        bufferBytes: 1024 * 1024,
        heartbeatMs: 20,
      }),
    );
    const server = app.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    const { port } = server.address() as { port: number };
    try {
      const { events } = await readEvents(`http://127.0.0.1:${port}/events`, 3);
      expect(events.map((event) => event.data)).toEqual(["connected", "heartbeat", "heartbeat"]);
      await expect.poll(() => subscribed).toBe(0);
    } finally {
      server.close();
    }
  });
});

describe("limits of the event streams", () => {
  it("refuses a stream past max_event_streams with 503 server_error and Retry-After, and opens one again once another closes", async () => {
    mock = await startSendMock({ port: 0, watchTemplates: false, maxEventStreams: 2 });
    const controllers = [new AbortController(), new AbortController()];
    for (const controller of controllers) expect((await fetch(`${mock.url}/_mock/events`, { signal: controller.signal })).status).toBe(200);

    const refused = await request(mock.url).get("/_mock/events");
    await expectContract(refused, { contract: "admin", method: "get", path: "/_mock/events" });
    expect(refused.status).toBe(503);
    expect(refused.headers["x-sendmock-error-code"]).toBe("server_error");
    expect(refused.headers["retry-after"]).toBe("1");
    expect(refused.body).toEqual({
      success: false,
      error: { code: "server_error", message: expect.stringContaining("at most 2 are open (max_event_streams)") as unknown },
    });

    controllers[0]?.abort();
    await expect
      .poll(async () => {
        const controller = new AbortController();
        const status = (await fetch(`${mock?.url ?? ""}/_mock/events`, { signal: controller.signal })).status;
        controller.abort();
        return status;
      })
      .toBe(200);
    controllers[1]?.abort();
  });

  it("prints no MaxListenersExceededWarning with 12 streams open", async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error): void => {
      warnings.push(warning.name);
    };
    process.on("warning", onWarning);
    try {
      mock = await startSendMock({ port: 0, watchTemplates: false });
      const controller = new AbortController();
      const responses = await Promise.all(Array.from({ length: 12 }, () => fetch(`${mock?.url ?? ""}/_mock/events`, { signal: controller.signal })));
      expect(responses.map((response) => response.status)).toEqual(Array.from({ length: 12 }, () => 200));
      await new Promise((resolve) => setImmediate(resolve));
      controller.abort();
      expect(warnings).not.toContain("MaxListenersExceededWarning");
    } finally {
      process.off("warning", onWarning);
    }
  });

  it("drops a client that never reads once event_buffer_bytes wait for it, telling it with event: dropped, while a reading client keeps up", async () => {
    // Lifecycle events would join the 121 counted below while the sends take their seconds.
    mock = await startSendMock({ port: 0, watchTemplates: false, eventBufferBytes: "2mb", lifecycle: { enabled: false } });
    const { port } = new URL(mock.url);
    const stalled = net.connect(Number(port), "127.0.0.1");
    await once(stalled, "connect");
    stalled.pause();
    stalled.write(`GET /_mock/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    // connected, then a message and a request event per send.
    let messagesRead = 0;
    const reading = readEvents(`${mock.url}/_mock/events`, 121, {
      onEvent: (event) => {
        if (event.event === "message") messagesRead += 1;
      },
    });
    const big = aSendRequest({ data: { name: "n".repeat(500_000), company: "Acme", login_url: "https://x.example" } });
    // 60 messages of about 1.5 MB: far more than the socket buffers and the 2 MB allowed.
    for (let index = 0; index < 60; index += 1) {
      const response = await fetch(`${mock.url}/send`, {
        method: "POST",
        headers: { "Content-Type": "application/json", ...bearer() },
        body: JSON.stringify(big),
      });
      expect(response.status).toBe(200);
      // A reading client reads each event before the next is sent, as an inbox page does. It
      // shares this process with the mock, so on a loaded machine it could otherwise fall more
      // than one 1.5 MB event behind, past the 2 MB allowed, and be dropped as well.
      await expect.poll(() => messagesRead, { timeout: 20_000, interval: 5 }).toBe(index + 1);
    }

    const received = await new Promise<string>((resolve) => {
      let text = "";
      stalled.setEncoding("latin1");
      stalled.on("data", (chunk: string) => {
        // Only the end can hold the notice: testing all of the tens of MB at each chunk was quadratic.
        const tail = text.slice(-1000) + chunk;
        text += chunk;
        if (/event: dropped\ndata: .*\n\n/.test(tail)) resolve(text);
      });
      stalled.on("close", () => resolve(text));
      stalled.resume();
    });
    const dropped = /event: dropped\ndata: (.*)\n\n/.exec(received);
    expect(JSON.parse(dropped?.[1] ?? "{}")).toEqual({ reason: expect.stringContaining("(event_buffer_bytes) behind and was dropped") as unknown });
    expect(received.length).toBeLessThan(60 * 1_500_000);
    stalled.destroy();
    const { events } = await reading;
    expect(events.filter((event) => event.event === "message")).toHaveLength(60);
  }, 60_000);
});

describe("the inbox page", () => {
  it("is served at /_mock/ with a strict Content-Security-Policy, and / and /_mock lead there", async () => {
    mock = await startSendMock({ port: 0, watchTemplates: false, adminToken: "admin-token-1" });
    const page = await request(mock.url).get("/_mock/");
    expect(page.status).toBe(200);
    expect(page.headers["content-type"]).toMatch(/^text\/html/);
    expect(page.headers["content-security-policy"]).toContain("script-src 'self'");
    expect(page.headers["content-security-policy"]).toContain("frame-ancestors 'none'");
    expect(page.headers["x-content-type-options"]).toBe("nosniff");
    expect(page.headers["referrer-policy"]).toBe("no-referrer");
    expect(page.text).toContain("./ui/app.js");
    await expectContract(page, { contract: "admin", method: "get", path: "/_mock/" });

    const script = await request(mock.url).get("/_mock/ui/app.js");
    expect(script.status).toBe(200);
    expect(script.headers["content-type"]).toMatch(/javascript/);

    expect((await request(mock.url).get("/")).headers.location).toBe("/_mock/");
    expect((await request(mock.url).get("/_mock")).headers.location).toBe("/_mock/");
  });

  it("answers a missing page file with 404 not_found", async () => {
    mock = await startSendMock({ port: 0, watchTemplates: false });
    const missing = await request(mock.url).get("/_mock/ui/no-such-file.js");
    expect(missing.status).toBe(404);
    expect(missing.headers["x-sendmock-error-code"]).toBe("not_found");
  });
});

describe("GET /_mock/templates/{id}/preview", () => {
  it("renders a template with its sample_data", async () => {
    mock = await startSendMock({ port: 0, watchTemplates: false });
    const preview = await request(mock.url).get("/_mock/templates/order-receipt/preview");
    await expectContract(preview, { contract: "admin", method: "get", path: "/_mock/templates/{id}/preview" });
    expect(preview.status).toBe(200);
    const rendered = preview.body as { subject: string; text: string };
    expect(rendered.subject).toContain("100482");
    expect(rendered.text).toContain("2 x Espresso beans (1 kg), 1 x Milk frother");
  });

  it("answers 404 for a template that does not exist", async () => {
    mock = await startSendMock({ port: 0, watchTemplates: false });
    const preview = await request(mock.url).get("/_mock/templates/nope/preview");
    await expectContract(preview, { contract: "admin", method: "get", path: "/_mock/templates/{id}/preview" });
    expect(preview.status).toBe(404);
  });
});
