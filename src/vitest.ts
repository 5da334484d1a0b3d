// sendmock/vitest: one mock per test file, or a file's own sandbox of the run's one mock, with vitest's hooks; see setupSendMock and setupSandbox in testing.ts.

import { afterAll, afterEach, beforeAll, expect, inject } from "vitest";
import { toPassEmailChecks, type EmailChecksExpectation } from "./email-matchers.js";
import { setupFileSandbox, type FileSandbox, type SetupSandboxOptions } from "./sandbox-setup.js";
import { setupSendMock as setupWithHooks, type SendMockHandle, type SetupSendMockOptions } from "./testing.js";

export type {
  ContractViolationJudge,
  ContractViolationMode,
  ExpectedViolation,
  FileSandbox,
  SendMockHandle,
  SetupSandboxOptions,
  SetupSendMockOptions,
} from "./testing.js";
export { WaitTimeoutError } from "./domain/outbox.js";
export type { EmailChecksExpectation } from "./email-matchers.js";
export { sandboxClient, workerSandbox, type SandboxClient, type SandboxClientOptions } from "./sandbox-client.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** The run's sendmock, as sendmock/vitest/global-setup provides it (and sets SENDMOCK_URL). */
    sendmockUrl: string;
  }
  // The type parameter is vitest's own, as merging needs it written: `any` is its default there.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  export interface Matchers<T = any> {
    /** No named check of the email fails but those `allow` names (docs/message-checks.md). */
    toPassEmailChecks(expectation?: EmailChecksExpectation): T;
  }
}

// Importing sendmock/vitest makes the matcher available in the file, as jest-dom's import does.
expect.extend({ toPassEmailChecks });

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

/**
 * This file's own sandbox of the run's one sendmock (started by `globalSetup: ["sendmock/vitest/global-setup"]`,
 * or SENDMOCK_URL): named after the file at once, empty when the file starts, the contract checked and
 * the sandbox reset after each test, forgotten after the last.
 *
 * @example
 * const sandbox = setupSandbox({ onContractViolation: "error" });
 * process.env.EMAIL_API_URL = sandbox.baseUrl;
 * it("sends", async () => { expect((await sandbox.outbox.list()).total).toBe(0); });
 */
export function setupSandbox(options: SetupSandboxOptions = {}): FileSandbox {
  const url = options.url ?? process.env.SENDMOCK_URL ?? inject("sendmockUrl");
  return setupFileSandbox(expect.getState().testPath, { ...options, url }, { beforeAll, afterEach, afterAll });
}
