// sign-up.test.ts: this file's own sandbox of the run's one sendmock, empty when the file starts, reset after each test.
import { expect, it } from "vitest";
import { setupSandbox } from "sendmock/vitest";

// Named after this file at once; fails a test whose requests broke the contract, resets after each, forgotten after the file.
const sandbox = setupSandbox({ onContractViolation: "error" });
process.env.EMAIL_API_URL = sandbox.baseUrl;        // the app's sends land in this file's sandbox

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

it("starts with an empty sandbox, whatever file ran before it in this worker", async () => {
  expect((await sandbox.outbox.list()).total).toBe(0);
  expect(await sandbox.faults.list()).toEqual([]);
});

it("sends a welcome email on sign-up", async () => {
  await signUp("ada@example.com", "Ada");
  const email = await sandbox.outbox.waitFor({ to: "ada@example.com" }, { timeoutMs: 2000 });
  expect(email.subject).toBe("Welcome to Acme, Ada!");
});

it("reports an outage of the email API", async () => {
  await sandbox.faults.add({ fault: "server_error", status: 503, times: 1 });
  await expect(signUp("bob@example.com", "Bob")).rejects.toThrow("the email API responded with 503");
});
