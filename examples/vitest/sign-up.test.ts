// sign-up.test.ts: one mock for this file, reset after each test, strict about the contract.
import { beforeAll, expect, it } from "vitest";
import { setupSendMock } from "sendmock/vitest";

// Starts a mock before the tests, fails a test whose requests broke the contract, resets after each.
const sendmock = setupSendMock({ onContractViolation: "error" });

beforeAll(() => {
  process.env.EMAIL_API_URL = sendmock.url;         // point the code under test at the mock
});

// The code under test: your app's sign-up, which sends the welcome email.
async function signUp(email: string, name: string): Promise<void> {
  const response = await fetch(`${process.env.EMAIL_API_URL}/send`, {
    method: "POST",
    headers: { Authorization: "Bearer test-key-1234", "Content-Type": "application/json" },
    body: JSON.stringify({
      to: email,
      template_id: "welcome",
      data: { name, company: "Acme", login_url: "https://app.example.com/login" },
    }),
  });
  if (!response.ok) throw new Error(`the email API responded with ${response.status}`);
}

it("sends a welcome email on sign-up", async () => {
  await signUp("ada@example.com", "Ada");
  const email = await sendmock.outbox.waitFor({ to: "ada@example.com" }, { timeoutMs: 2000 });
  expect(email.subject).toBe("Welcome to Acme, Ada!");
  expect(email.links).toContain("https://app.example.com/login");
  expect(email).toPassEmailChecks();                  // links, placeholders, size, client support, …
});

it("starts every test with an empty outbox", async () => {
  expect((await sendmock.outbox.list()).total).toBe(0);
});

it("reports an outage of the email API", async () => {
  await sendmock.faults.add({ fault: "server_error", status: 503, times: 1 });
  await expect(signUp("bob@example.com", "Bob")).rejects.toThrow("the email API responded with 503");
});
