// setupSandbox: a test file's own sandbox of the run's one sendmock, empty when the file starts whatever worker it runs in,
// judged and reset after each test, forgotten after the file (docs/library.md, "One server per run, a sandbox per file").

import { randomUUID } from "node:crypto";
import path from "node:path";
import { judgeContract, type ContractViolationJudge } from "./contract-breaks.js";
import { checkedExpectation, type ExpectedViolation } from "./expected-violations.js";
import { sandboxClient, type SandboxClient } from "./sandbox-client.js";
import type { TestHooks } from "./test-hooks.js";

export interface SetupSandboxOptions {
  /** The run's sendmock; by default `process.env.SENDMOCK_URL`, which the package's global setup sets. */
  url?: string;
  /** The mock's `admin_token`, when it has one; by default `process.env.SENDMOCK_ADMIN_TOKEN`. */
  adminToken?: string;
  /**
   * `"error"` fails the test that sent a request into this sandbox breaking the contract, naming
   * each violation; `"warn"` (the default) prints the same report with `console.warn`; `"off"` says nothing.
   * A function of the request's journal entry chooses one of the three for each request.
   */
  onContractViolation?: ContractViolationJudge;
}

/** A test file's own sandbox: the sandbox client, and what a test says of the violations it sends on purpose. */
export interface FileSandbox extends SandboxClient {
  /**
   * Lets through the violations `match` names in the requests of the test it is called in (`{ path: "/to" }`,
   * `{ to: "ada@@example.com" }`, `{}` for all), whatever `onContractViolation` says; any other still counts.
   * An expectation that matches nothing fails the test: the violation it allows did not happen.
   */
  expectViolation(match?: ExpectedViolation): void;
}

/** A sandbox name is at most 64 characters (docs/sandboxes.md). */
const MAX_NAME_LENGTH = 64;
/** Eight hex digits: two files of the same base name in one run (two folders, or one run after another on a shared server) never meet. */
const SUFFIX_LENGTH = 8;
/** The most entries `GET /_mock/requests` lists: a test's requests all judged, however many it sent. */
const JOURNAL_PAGE = 10_000;
/** Hook calls go to a server a whole run shares: on a busy machine more than a framework's default hook timeout. */
const HOOK_TIMEOUT_MS = 30_000;

/**
 * `sign-up-3f9a0c12` for `…/sign-up.test.ts`: the file's base name without its test suffix and
 * extension, lower case, each run of other characters a `-`, and a random suffix; only letters,
 * digits and inner `-`, so `address()` can name it.
 */
export function fileSandboxName(testPath: string | undefined): string {
  const base = testPath === undefined ? "" : path.basename(testPath).replace(/(\.(test|spec))?\.[cm]?[jt]sx?$/i, "");
  const slug = base
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .slice(0, MAX_NAME_LENGTH - SUFFIX_LENGTH - 1)
    .replace(/^-+|-+$/g, "");
  return `${slug === "" ? "file" : slug}-${randomUUID().slice(0, SUFFIX_LENGTH)}`;
}

/** Says what to do when the run has no sendmock, instead of a failed fetch to nowhere. */
function runServerUrl(options: SetupSandboxOptions): string {
  const url = options.url ?? process.env.SENDMOCK_URL;
  if (url !== undefined && url !== "") return url;
  throw new Error(
    'sendmock: setupSandbox has no server: SENDMOCK_URL is not set and no url was given. Start one sendmock for the run with the global setup (vitest: globalSetup: ["sendmock/vitest/global-setup"]; jest: globalSetup: "sendmock/jest/global-setup" and globalTeardown: "sendmock/jest/global-teardown"), or set SENDMOCK_URL to a running sendmock',
  );
}

/** What beforeAll throws: a fetch that failed before any response (fetch's TypeError, its cause the socket's error) as a server that does not answer, any other error as it is. */
function startFailure(url: string, error: unknown): Error {
  if (!(error instanceof TypeError)) return error instanceof Error ? error : new Error(String(error));
  const cause = error.cause instanceof Error ? error.cause.message : error.message;
  return new Error(
    `sendmock: no sendmock answers at ${url} (${cause}): is the global setup in your test config, or does SENDMOCK_URL point at a running sendmock?`,
    { cause: error },
  );
}

/**
 * The file's own sandbox of the run's sendmock, named from `testPath` (the test file, when the
 * framework says) at once, so `baseUrl` and `address()` can be handed to the app at the top of
 * the file. Hooks: before the file's tests, the server answers and the sandbox is empty; after
 * each test, the contract is judged for the requests it sent into the sandbox, then the sandbox
 * is reset; after the file, the sandbox is forgotten, so a long run never meets max_sandboxes.
 */
export function setupFileSandbox(testPath: string | undefined, options: SetupSandboxOptions, hooks: TestHooks): FileSandbox {
  const { onContractViolation = "warn" } = options;
  const url = runServerUrl(options);
  const sandbox = sandboxClient({ url, sandbox: fileSandboxName(testPath), adminToken: options.adminToken ?? process.env.SENDMOCK_ADMIN_TOKEN });
  let ready = false;
  // What the test running now expects; the afterEach after it judges by them and forgets them.
  const expected: ExpectedViolation[] = [];

  hooks.beforeAll(async () => {
    await sandbox.reset().catch((error: unknown) => {
      throw startFailure(sandbox.url, error);
    });
    ready = true;
  }, HOOK_TIMEOUT_MS);

  hooks.afterEach(async () => {
    if (!ready) return; // beforeAll failed: the framework already reports that
    const { requests } = await sandbox.journal.list({ limit: JOURNAL_PAGE });
    const failure = judgeContract(requests.toReversed(), onContractViolation, expected.splice(0));
    await sandbox.reset();
    if (failure !== undefined) throw new Error(failure);
  }, HOOK_TIMEOUT_MS);

  hooks.afterAll(async () => {
    if (!ready) return;
    ready = false;
    await sandbox.forget();
  }, HOOK_TIMEOUT_MS);

  return {
    ...sandbox,
    expectViolation(match = {}) {
      expected.push(checkedExpectation(match));
    },
  };
}
