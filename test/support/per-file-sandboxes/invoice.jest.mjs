// One of three files that jest runs in one worker, this one an ES module (jest's --experimental-vm-modules): it finds its
// sandbox empty and leaves things behind, never resetting anything itself.
import { sandboxClient, setupSandbox } from "sendmock/jest";
import steps from "./sandbox-steps.cjs";

/** As jest-sandbox.cjs chooses, through sendmock/jest's ES module build. */
const sandbox = process.env.SANDBOX_OF === "worker" ? sandboxClient({ url: process.env.SENDMOCK_URL ?? "" }) : setupSandbox({ onContractViolation: "error" });

test("starts with an empty sandbox", async () => {
  expect(await steps.contentsOf(sandbox)).toEqual({ messages: 0, requests: 0, faultRules: 0, clockOffsetMs: 0 });
});

test("leaves messages, a fault rule and a clock advance behind", async () => {
  expect(await steps.leaveThingsBehind(sandbox)).toEqual({ messages: 2, requests: 2, faultRules: 1, clockOffsetMs: 3_600_000 });
});
