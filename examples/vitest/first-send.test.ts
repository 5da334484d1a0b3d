// first-send.test.ts: the mock of this file; the code under test sends to sendmock.url.
import { expect, it } from "vitest";
import { setupSendMock } from "sendmock/vitest";

const sendmock = setupSendMock({ onContractViolation: "error" });

it("sends the welcome email", async () => {
  const body = { to: "ada@example.com", template_id: "welcome", data: { name: "Ada", company: "Acme", login_url: "https://app.example.com/login" } };
  await fetch(`${sendmock.url}/send`, { method: "POST", headers: { Authorization: "Bearer test-key-1234", "Content-Type": "application/json" }, body: JSON.stringify(body) });
  const email = await sendmock.outbox.waitFor({ to: "ada@example.com" });
  expect(email.subject).toBe("Welcome to Acme, Ada!");
});
