// bounce.test.ts: a message that bounces, with the mock's clock advanced instead of waiting.
import { expect, it } from "vitest";
import { setupSendMock } from "sendmock/vitest";

const sendmock = setupSendMock({ onContractViolation: "error" });

// The code under test: your app's receipt email; it keeps the message id to follow it up.
async function sendReceipt(email: string): Promise<string> {
  const response = await fetch(`${sendmock.url}/send`, {
    method: "POST",
    headers: { Authorization: "Bearer test-key-1234", "Content-Type": "application/json" },
    body: JSON.stringify({
      to: email,
      template_id: "welcome",
      data: { name: "Ada", company: "Acme", login_url: "https://app.example.com/login" },
    }),
  });
  const body = (await response.json()) as { message_id: string };
  return body.message_id;
}

it("sees a hard bounce 2 s after sending, in milliseconds", async () => {
  const id = await sendReceipt("bounced@outcome.sendmock.test");
  await sendmock.clock.advance(2000); // sent at +1 s, bounced at +2 s: both happen before it resolves
  const email = await sendmock.outbox.get(id);
  expect(email?.status).toBe("bounced");
  expect(email?.events.map((event) => event.type)).toEqual(["message.sent", "message.bounced"]);
});

it("bounces the next message to any address with an outcome rule", async () => {
  await sendmock.outcomes.add({ outcome: "bounced", times: 1 });
  await sendReceipt("ada@example.com");
  await sendmock.clock.advance(2000);
  const email = await sendmock.outbox.waitFor({ to: "ada@example.com", status: "bounced" }, { timeoutMs: 2000 });
  expect(email.events.at(-1)).toMatchObject({ type: "message.bounced", bounce_type: "hard" });
});
