// mistyped-address.test.ts: a test that sends a bad address on purpose, in a file strict about the contract.
import { expect, it } from "vitest";
import { setupSendMock } from "sendmock/vitest";

const sendmock = setupSendMock({ onContractViolation: "error" });

// The code under test: your app's invite form, which shows the email API's refusal to the user.
async function invite(email: string): Promise<string> {
  const response = await fetch(`${sendmock.url}/send`, {
    method: "POST",
    headers: { Authorization: "Bearer test-key-1234", "Content-Type": "application/json" },
    body: JSON.stringify({
      to: email,
      template_id: "welcome",
      data: { name: "Ada", company: "Acme", login_url: "https://app.example.com/login" },
    }),
  });
  return response.ok ? "invited" : `could not invite ${email} (${response.status})`;
}

it("shows the refusal of a mistyped address", async () => {
  // This test's one request to /to breaks the contract on purpose: let it through, and fail if it never happens.
  sendmock.expectViolation({ path: "/to", to: "ada@@example.com" });
  expect(await invite("ada@@example.com")).toBe("could not invite ada@@example.com (422)");
});

it("still fails on any violation it did not expect", async () => {
  expect(await invite("ada@example.com")).toBe("invited");
});
