// Test helpers for any test framework: one mock per file, or a file's own sandbox of the run's one mock; reset after each test, contract breaks reported on the test that made them.

import type { SendMockOptions } from "./config/resolve.js";
import { judgeContract, type ContractViolationJudge } from "./contract-breaks.js";
import { checkedExpectation, type ExpectedViolation } from "./expected-violations.js";
import { turnEnd } from "./domain/turns.js";
import type { RunningSendMock } from "./mock.js";
import { setupFileSandbox, type FileSandbox, type SetupSandboxOptions } from "./sandbox-setup.js";
import type { TestHooks } from "./test-hooks.js";

export { contractBreaks, describeContractBreaks, type ContractViolationJudge, type ContractViolationMode } from "./contract-breaks.js";
export type { ExpectedViolation } from "./expected-violations.js";
export { WaitTimeoutError } from "./domain/outbox.js";
export { toPassEmailChecks, type EmailChecksExpectation } from "./email-matchers.js";
export { sendmockGlobalSetup, type SendMockGlobalSetup } from "./global-setup.js";
export { sandboxClient, workerSandbox, type RemoteMessageFilter, type SandboxClient, type SandboxClientOptions } from "./sandbox-client.js";
export type { FileSandbox, SetupSandboxOptions } from "./sandbox-setup.js";
export type { TestHook, TestHooks } from "./test-hooks.js";

export interface SetupSendMockOptions extends SendMockOptions {
  /**
   * `"error"` fails the test that sent a request breaking the contract, naming each violation;
   * `"warn"` (the default) prints the same report with `console.warn`; `"off"` says nothing. A
   * function of the request's journal entry chooses one of the three for each request.
   */
  onContractViolation?: ContractViolationJudge;
}

/** What a test says of the contract violations it sends on purpose. */
export interface ViolationExpectations {
  /**
   * Lets through the violations `match` names in the requests of the test it is called in (`{ path: "/to" }`,
   * `{ to: "ada@@example.com" }`, `{}` for all), whatever `onContractViolation` says; any other still counts.
   * An expectation that matches nothing fails the test: the violation it allows did not happen.
   */
  expectViolation(match?: ExpectedViolation): void;
}

/** The file's mock, usable in tests and hooks once `beforeAll` has started it. */
export type SendMockHandle = Omit<RunningSendMock, "close" | "sandbox"> & ViolationExpectations;

/** Starting loads both contracts and the templates: more than a framework's default hook timeout allows on a busy machine. */
const HOOK_TIMEOUT_MS = 30_000;

/**
 * Registers hooks that start a listening mock before the file's tests (`port: 0` unless given),
 * check the contract and reset it after each test, and close it after the last.
 *
 * @example
 * import { afterAll, afterEach, beforeAll } from "@jest/globals";
 * const sendmock = setupSendMock({ onContractViolation: "error" }, { beforeAll, afterEach, afterAll });
 * it("…", async () => { await fetch(`${sendmock.url}/send`, …); });
 */
export function setupSendMock(options: SetupSendMockOptions, hooks: TestHooks): SendMockHandle {
  const { onContractViolation = "warn", ...mockOptions } = options;
  const state: { mock: RunningSendMock | undefined; closed: boolean } = { mock: undefined, closed: false };
  // What the test running now expects; the afterEach after it judges by them and forgets them.
  const expected: ExpectedViolation[] = [];

  const current = (): RunningSendMock => {
    if (state.mock !== undefined) return state.mock;
    throw new Error(
      state.closed
        ? "sendmock: the mock of this file is closed: its afterAll hook has run"
        : "sendmock: the mock has not started yet: use it inside tests or hooks that run after setupSendMock's beforeAll (call setupSendMock at the top of the file or of a describe, then use it in beforeAll, beforeEach or a test)",
    );
  };

  hooks.beforeAll(async () => {
    // Loaded here, not with the module: a file that only uses setupSandbox or sandboxClient (jest loads the
    // modules again for every file) does not pay for the server, express and the contracts.
    const { startSendMock } = await import("./mock.js");
    state.mock = await startSendMock({ port: 0, ...mockOptions });
  }, HOOK_TIMEOUT_MS);

  hooks.afterEach(async () => {
    const mock = state.mock;
    if (mock === undefined) return; // beforeAll failed: the framework already reports that
    // A journal entry is written when its response goes out: let those already responded land first.
    await turnEnd();
    const failure = judgeContract((await mock.journal.list()).requests.toReversed(), onContractViolation, expected.splice(0));
    await mock.reset();
    if (failure !== undefined) throw new Error(failure);
  }, HOOK_TIMEOUT_MS);

  hooks.afterAll(async () => {
    const mock = state.mock;
    state.mock = undefined;
    state.closed = true;
    await mock?.close();
  }, HOOK_TIMEOUT_MS);

  return {
    get url() {
      return current().url;
    },
    get port() {
      return current().port;
    },
    get app() {
      return current().app;
    },
    get config() {
      return current().config;
    },
    get outbox() {
      return current().outbox;
    },
    get journal() {
      return current().journal;
    },
    get templates() {
      return current().templates;
    },
    get settings() {
      return current().settings;
    },
    get faults() {
      return current().faults;
    },
    get outcomes() {
      return current().outcomes;
    },
    get clock() {
      return current().clock;
    },
    get webhooks() {
      return current().webhooks;
    },
    reset() {
      return current().reset();
    },
    expectViolation(match = {}) {
      expected.push(checkedExpectation(match));
    },
  };
}

/**
 * Registers hooks that give this test file a sandbox of its own on the run's one sendmock
 * (`options.url`, else `SENDMOCK_URL`, which the package's global setup sets): empty when the file
 * starts, the contract judged and the sandbox reset after each test, forgotten after the last.
 * The sandbox is named at once (from the test file's name when a global `expect` says it), so
 * `baseUrl` and `address()` can be handed to the app at the top of the file.
 *
 * @example
 * import { afterAll, afterEach, beforeAll } from "@jest/globals";
 * const sandbox = setupSandbox({ onContractViolation: "error" }, { beforeAll, afterEach, afterAll });
 * it("…", async () => { await fetch(`${sandbox.baseUrl}/send`, …); });
 */
export function setupSandbox(options: SetupSandboxOptions, hooks: TestHooks): FileSandbox {
  return setupFileSandbox(testFileOfGlobalExpect(), options, hooks);
}

/** The running test file as jest's global `expect` (and vitest's, with `globals: true`) says it; undefined elsewhere. */
function testFileOfGlobalExpect(): string | undefined {
  const globalExpect = (globalThis as { expect?: { getState?: () => { testPath?: unknown } } }).expect;
  const testPath = globalExpect?.getState?.().testPath;
  return typeof testPath === "string" ? testPath : undefined;
}
