// A webhook receiver on loopback for tests: records every delivery it gets and answers each with
// the next of the answers it was told to give (200 once they run out), or never answers.

import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { onTestFinished } from "vitest";
import type { WebhookPayload } from "../../src/index.js";

export interface ReceivedDelivery {
  headers: IncomingHttpHeaders;
  /** The body exactly as it came, for signature checks. */
  body: string;
  payload: WebhookPayload;
}

/** A status to answer with, or `hang` to keep the request open until the receiver closes. */
export type ReceiverAnswer = number | "hang";

export interface WebhookReceiver {
  url: string;
  received: ReceivedDelivery[];
  /** Answers the next requests with these, in order. */
  answerWith(...answers: ReceiverAnswer[]): void;
  close(): Promise<void>;
}

export async function aWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedDelivery[] = [];
  const answers: ReceiverAnswer[] = [];
  const hanging = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      received.push({ headers: req.headers, body, payload: JSON.parse(body) as WebhookPayload });
      const answer = answers.shift() ?? 200;
      if (answer === "hang") {
        hanging.add(res);
        return;
      }
      res.statusCode = answer;
      res.end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/webhooks/email`,
    received,
    answerWith: (...next) => answers.push(...next),
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of hanging) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A receiver closed when the current test finishes. */
export async function aWebhookReceiverForThisTest(): Promise<WebhookReceiver> {
  const receiver = await aWebhookReceiver();
  onTestFinished(() => receiver.close());
  return receiver;
}

/** A loopback URL where nothing listens: the port of a server that was closed. */
export async function aRefusingUrl(): Promise<string> {
  const receiver = await aWebhookReceiver();
  await receiver.close();
  return receiver.url;
}
