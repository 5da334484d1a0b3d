// A webhook receiver on loopback for tests: records every delivery it gets and responds to each with
// the next of the responses it was told to give (then its fallback, 200 unless told), late, or never;
// and one that holds each request until the test lets it go, counting how many it holds at once.

import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { expect, onTestFinished } from "vitest";
import type { WebhookPayload } from "../../src/index.js";

export interface ReceivedDelivery {
  headers: IncomingHttpHeaders;
  /** The body exactly as it came, for signature checks. */
  body: string;
  payload: WebhookPayload;
}

/** A status to respond with, a status given `afterMs` late, or `hang` to keep the request open until the receiver closes. */
export type ReceiverResponse = number | "hang" | { status: number; afterMs: number };

export interface WebhookReceiver {
  url: string;
  received: ReceivedDelivery[];
  /** Responds to the next requests with these, in order. */
  respondWith(...responses: ReceiverResponse[]): void;
  close(): Promise<void>;
}

export interface ReceiverOptions {
  /** The response once those given to `answerWith` run out (default 200). */
  fallback?: ReceiverResponse;
}

export async function aWebhookReceiver(options: ReceiverOptions = {}): Promise<WebhookReceiver> {
  const received: ReceivedDelivery[] = [];
  const responses: ReceiverResponse[] = [];
  const hanging = new Set<ServerResponse>();
  const late = new Set<NodeJS.Timeout>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      received.push({ headers: req.headers, body, payload: JSON.parse(body) as WebhookPayload });
      const response = responses.shift() ?? options.fallback ?? 200;
      if (response === "hang") {
        hanging.add(res);
        return;
      }
      if (typeof response === "number") {
        res.statusCode = response;
        res.end("ok");
        return;
      }
      const timer = setTimeout(() => {
        late.delete(timer);
        res.statusCode = response.status;
        res.end("ok");
      }, response.afterMs);
      late.add(timer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/webhooks/email`,
    received,
    respondWith: (...next) => responses.push(...next),
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of late) clearTimeout(timer);
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A receiver closed when the current test finishes. */
export async function aWebhookReceiverForThisTest(options: ReceiverOptions = {}): Promise<WebhookReceiver> {
  const receiver = await aWebhookReceiver(options);
  onTestFinished(() => receiver.close());
  return receiver;
}

/** A loopback URL where nothing listens: the port of a server that was closed. */
export async function aRefusingUrl(): Promise<string> {
  const receiver = await aWebhookReceiver();
  await receiver.close();
  return receiver.url;
}

/**
 * A receiver that holds every request until the test lets one go, counting the requests it holds:
 * it counts one from its arrival to its response, a span inside the one sendmock holds it, so its
 * peak is never above sendmock's number of attempts under way.
 */
export async function aHoldingReceiverForThisTest() {
  const held: ServerResponse[] = [];
  let received = 0;
  let peak = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      received += 1;
      held.push(res);
      peak = Math.max(peak, held.length);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  onTestFinished(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    held: () => held.length,
    received: () => received,
    peak: () => peak,
    /** Responds 200 to the request held longest. */
    releaseOne(): void {
      held.shift()?.end("ok");
    },
    /** Lets `count` requests through one at a time, each once one is held: each place freed lets the next attempt in. */
    async releaseOneByOne(count: number): Promise<void> {
      for (let released = 0; released < count; released += 1) {
        await expect.poll(() => held.length, { timeout: 10_000 }).toBeGreaterThan(0);
        held.shift()?.end("ok");
      }
    },
  };
}
