// sendmock/jest: one mock per test file with jest's global hooks; see setupSendMock in testing.ts.

import { setupSendMock as setupWithHooks, type SendMockHandle, type SetupSendMockOptions, type TestHook } from "./testing.js";

export type { ContractViolationMode, SendMockHandle, SetupSendMockOptions } from "./testing.js";
export { sandboxClient, workerSandbox, type SandboxClient, type SandboxClientOptions } from "./sandbox-client.js";

function globalHook(name: "beforeAll" | "afterEach" | "afterAll"): TestHook {
  const hook: unknown = (globalThis as Record<string, unknown>)[name];
  if (typeof hook !== "function") {
    throw new Error(
      `sendmock/jest: there is no global ${name}: run this file with jest, or with injectGlobals: false use setupSendMock from "sendmock/testing" and pass { beforeAll, afterEach, afterAll } from "@jest/globals"`,
    );
  }
  return hook as TestHook;
}

/**
 * Starts a mock before this file's tests, checks the contract and resets after each, closes after the last.
 *
 * @example
 * const sendmock = setupSendMock({ onContractViolation: "error" });
 * test("sends", async () => { await fetch(`${sendmock.url}/send`, …); });
 */
export function setupSendMock(options: SetupSendMockOptions = {}): SendMockHandle {
  return setupWithHooks(options, { beforeAll: globalHook("beforeAll"), afterEach: globalHook("afterEach"), afterAll: globalHook("afterAll") });
}
