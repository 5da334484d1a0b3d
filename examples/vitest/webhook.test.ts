// webhook.test.ts: your app's webhook receiver, fed signed events by sendmock, the clock advanced instead of waiting.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, expect, it } from "vitest";
import { setupSendMock } from "sendmock/vitest";

const sendmock = setupSendMock({ onContractViolation: "error" });

// The code under test: a receiver that checks the signature and marks bounced addresses undeliverable.
const undeliverable = new Set<string>();
let secret = "";
const receiver = createServer((req, res) => {
  let body = "";
  req.on("data", (chunk: Buffer) => (body += chunk.toString()));
  req.on("end", () => {
    try {
      const event = new Webhook(secret).verify(body, req.headers as Record<string, string>) as { type: string; data: { to: string } };
      if (event.type === "message.bounced") undeliverable.add(event.data.to);
      res.writeHead(204).end();
    } catch {
      res.writeHead(401).end(); // a bad signature: sendmock records it and retries
    }
  });
});

beforeAll(() => new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve)));
afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

it("marks an address undeliverable when its message bounces", async () => {
  const { port } = receiver.address() as AddressInfo;
  ({ secret } = await sendmock.webhooks.add({ url: `http://127.0.0.1:${port}/webhooks/email`, events: ["message.bounced"] }));
  await fetch(`${sendmock.url}/send`, {
    method: "POST",
    headers: { Authorization: "Bearer test-key-1234", "Content-Type": "application/json" },
    body: JSON.stringify({
      to: "bounced@outcome.sendmock.test",
      template_id: "welcome",
      data: { name: "Ada", company: "Acme", login_url: "https://app.example.com/login" },
    }),
  });
  await sendmock.clock.advance(2000); // bounced at +2 s: its webhook is delivered before this resolves
  expect(undeliverable).toEqual(new Set(["bounced@outcome.sendmock.test"]));
  expect(await sendmock.webhooks.deliveries()).toMatchObject([{ event_type: "message.bounced", attempt: 1, status: 204 }]);
});
