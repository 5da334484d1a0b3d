// sendmock/jest: one mock per test file, or a file's own sandbox of the run's one mock, with jest's global hooks; see setupSendMock and setupSandbox in testing.ts.

import { toPassEmailChecks, type EmailChecksExpectation } from "./email-matchers.js";
import type { FileSandbox, SetupSandboxOptions } from "./sandbox-setup.js";
import {
  setupSandbox as setupSandboxWithHooks,
  setupSendMock as setupWithHooks,
  type SendMockHandle,
  type SetupSendMockOptions,
  type TestHook,
  type TestHooks,
} from "./testing.js";

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

declare global {
  // jest's own namespace, as @types/jest declares it: the matcher is typed wherever jest's globals are.
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace jest {
    interface Matchers<R> {
      /** No named check of the email fails but those `allow` names (docs/message-checks.md). */
      toPassEmailChecks(expectation?: EmailChecksExpectation): R;
    }
  }
}

// Importing sendmock/jest makes the matcher available in the file; without jest's global expect (injectGlobals: false), call
// expect.extend({ toPassEmailChecks }) from "sendmock/testing" yourself.
const globalExpect = (globalThis as { expect?: { extend?: (matchers: Record<string, unknown>) => void } }).expect;
globalExpect?.extend?.({ toPassEmailChecks });
export { sandboxClient, workerSandbox, type SandboxClient, type SandboxClientOptions } from "./sandbox-client.js";

function globalHook(name: "beforeAll" | "afterEach" | "afterAll"): TestHook {
  const hook: unknown = (globalThis as Record<string, unknown>)[name];
  if (typeof hook !== "function") {
    throw new Error(
      `sendmock/jest: there is no global ${name}: run this file with jest, or with injectGlobals: false use setupSendMock or setupSandbox from "sendmock/testing" and pass { beforeAll, afterEach, afterAll } from "@jest/globals"`,
    );
  }
  return hook as TestHook;
}

function globalHooks(): TestHooks {
  return { beforeAll: globalHook("beforeAll"), afterEach: globalHook("afterEach"), afterAll: globalHook("afterAll") };
}

/**
 * Starts a mock before this file's tests, checks the contract and resets after each, closes after the last.
 *
 * @example
 * const sendmock = setupSendMock({ onContractViolation: "error" });
 * test("sends", async () => { await fetch(`${sendmock.url}/send`, …); });
 */
export function setupSendMock(options: SetupSendMockOptions = {}): SendMockHandle {
  return setupWithHooks(options, globalHooks());
}

/**
 * This file's own sandbox of the run's one sendmock (started by `globalSetup: "sendmock/jest/global-setup"`,
 * or SENDMOCK_URL): named after the file at once, empty when the file starts, the contract checked and
 * the sandbox reset after each test, forgotten after the last.
 *
 * @example
 * const sandbox = setupSandbox({ onContractViolation: "error" });
 * process.env.EMAIL_API_URL = sandbox.baseUrl;
 * test("sends", async () => { expect((await sandbox.outbox.list()).total).toBe(0); });
 */
export function setupSandbox(options: SetupSandboxOptions = {}): FileSandbox {
  return setupSandboxWithHooks(options, globalHooks());
}
