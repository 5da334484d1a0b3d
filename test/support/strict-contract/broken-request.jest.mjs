// A user's jest file under onContractViolation: "error": one test breaks the contract, one keeps it, one expects the violation it sends, one expects a violation it never sends.
import { setupSendMock } from "sendmock/jest";

const sendmock = setupSendMock({ onContractViolation: "error", watchTemplates: false });

function send(to) {
  return fetch(`${sendmock.url}/send`, {
    method: "POST",
    headers: { Authorization: "Bearer test-key-1234", "Content-Type": "application/json" },
    body: JSON.stringify({ to, template_id: "welcome", data: { name: "Ada", company: "Acme", login_url: "https://app.example.com/login" } }),
  });
}

test("sends a number as the recipient", async () => {
  expect((await send(5)).status).toBe(400);
});

test("sends a valid request", async () => {
  expect((await send("ada@example.com")).status).toBe(200);
});

test("expects the mistyped address it sends", async () => {
  sendmock.expectViolation({ path: "/to" });
  expect((await send("ada@@example.com")).status).toBe(422);
});

test("expects a violation it never sends", async () => {
  sendmock.expectViolation({ path: "/to" });
  expect((await send("ada@example.com")).status).toBe(200);
});
