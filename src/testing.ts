// Test helpers for any test framework: one mock per file, reset after each test, contract breaks reported on the test that made them.

import type { SendMockOptions } from "./config/resolve.js";
import { turnEnd } from "./domain/turns.js";
import type { JournalEntry } from "./wire.js";
import { startSendMock, type RunningSendMock } from "./mock.js";

export { sandboxClient, workerSandbox, type RemoteMessageFilter, type SandboxClient, type SandboxClientOptions } from "./sandbox-client.js";

/** What to do when a request made during a test broke the contract (openapi/send.yaml). */
export type ContractViolationMode = "error" | "warn" | "off";

export interface SetupSendMockOptions extends SendMockOptions {
  /**
   * `"error"` fails the test that sent a request breaking the contract, naming each violation;
   * `"warn"` (the default) prints the same report with `console.warn`; `"off"` says nothing.
   */
  onContractViolation?: ContractViolationMode;
}

/** A hook of the test framework: vitest's and jest's `beforeAll`, `afterEach`, `afterAll`. */
export type TestHook = (fn: () => Promise<void>, timeoutMs?: number) => unknown;

export interface TestHooks {
  beforeAll: TestHook;
  afterEach: TestHook;
  afterAll: TestHook;
}

/** The file's mock, usable in tests and hooks once `beforeAll` has started it. */
export type SendMockHandle = Omit<RunningSendMock, "close" | "sandbox">;

/** Starting loads both contracts and the templates: more than a framework's default hook timeout allows on a busy machine. */
const HOOK_TIMEOUT_MS = 30_000;

/** The requests of `requests` that broke the contract: refused for their shape, headers, JSON or method. */
export function contractBreaks(requests: readonly JournalEntry[]): JournalEntry[] {
  return requests.filter((entry) => entry.violations.length > 0 || entry.error_code === "invalid_json" || entry.error_code === "method_not_allowed");
}

/**
 * `sendmock: 1 request in this test broke the contract (openapi/send.yaml):`
 * `  POST /send -> 400 invalid_request`
 * `    /to: to must be a string`
 */
export function describeContractBreaks(breaks: readonly JournalEntry[]): string {
  const count = `${breaks.length} request${breaks.length === 1 ? "" : "s"}`;
  const lines = [`sendmock: ${count} in this test broke the contract (openapi/send.yaml):`];
  for (const entry of breaks) {
    lines.push(`  ${entry.method} ${entry.path} -> ${entry.status} ${entry.error_code ?? "(no error code)"}`);
    const violations = entry.violations.length > 0 ? entry.violations : [{ path: "", message: entry.error_message ?? "" }];
    for (const violation of violations) lines.push(`    ${violation.path || "/"}: ${violation.message}`);
  }
  return lines.join("\n");
}

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

  const current = (): RunningSendMock => {
    if (state.mock !== undefined) return state.mock;
    throw new Error(
      state.closed
        ? "sendmock: the mock of this file is closed: its afterAll hook has run"
        : "sendmock: the mock has not started yet: use it inside tests or hooks that run after setupSendMock's beforeAll (call setupSendMock at the top of the file or of a describe, then use it in beforeAll, beforeEach or a test)",
    );
  };

  hooks.beforeAll(async () => {
    state.mock = await startSendMock({ port: 0, ...mockOptions });
  }, HOOK_TIMEOUT_MS);

  hooks.afterEach(async () => {
    const mock = state.mock;
    if (mock === undefined) return; // beforeAll failed: the framework already reports that
    let report: string | undefined;
    if (onContractViolation !== "off") {
      // A journal entry is written when its response goes out: let those already responded land first.
      await turnEnd();
      const breaks = contractBreaks((await mock.journal.list()).requests.toReversed());
      if (breaks.length > 0) report = describeContractBreaks(breaks);
    }
    await mock.reset();
    if (report === undefined) return;
    if (onContractViolation === "error") throw new Error(report);
    console.warn(report);
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
  };
}
