// A user's vitest file under onContractViolation: "error": one test breaks the contract, one keeps it, one expects the violation it sends, one expects a violation it never sends.
import { expect, it } from "vitest";
import { setupSendMock } from "sendmock/vitest";

const sendmock = setupSendMock({ onContractViolation: "error", watchTemplates: false });

function send(to: unknown): Promise<Response> {
  return fetch(`${sendmock.url}/send`, {
    method: "POST",
    headers: { Authorization: "Bearer test-key-1234", "Content-Type": "application/json" },
    body: JSON.stringify({ to, template_id: "welcome", data: { name: "Ada", company: "Acme", login_url: "https://app.example.com/login" } }),
  });
}

it("sends a number as the recipient", async () => {
  expect((await send(5)).status).toBe(400);
});

it("sends a valid request", async () => {
  expect((await send("ada@example.com")).status).toBe(200);
});

it("expects the mistyped address it sends", async () => {
  sendmock.expectViolation({ path: "/to" });
  expect((await send("ada@@example.com")).status).toBe(422);
});

it("expects a violation it never sends", async () => {
  sendmock.expectViolation({ path: "/to" });
  expect((await send("ada@example.com")).status).toBe(200);
});
