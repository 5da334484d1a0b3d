// sendmock/vitest: one mock per test file with vitest's hooks; see setupSendMock in testing.ts.

import { afterAll, afterEach, beforeAll } from "vitest";
import { setupSendMock as setupWithHooks, type SendMockHandle, type SetupSendMockOptions } from "./testing.js";

export type { ContractViolationMode, SendMockHandle, SetupSendMockOptions } from "./testing.js";
export { sandboxClient, workerSandbox, type SandboxClient, type SandboxClientOptions } from "./sandbox-client.js";

/**
 * Starts a mock before this file's tests, checks the contract and resets after each, closes after the last.
 *
 * @example
 * const sendmock = setupSendMock({ onContractViolation: "error" });
 * it("sends", async () => { await fetch(`${sendmock.url}/send`, …); });
 */
export function setupSendMock(options: SetupSendMockOptions = {}): SendMockHandle {
  return setupWithHooks(options, { beforeAll, afterEach, afterAll });
}
