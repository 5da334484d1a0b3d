// One sendmock for a whole test run, started in the runner's main process by its global setup (vitest's, jest's) before any
// worker, its URL published as SENDMOCK_URL for the workers to inherit; or none, when SENDMOCK_URL already names one.

import type { SendMockOptions } from "./config/resolve.js";
import type { RunningSendMock } from "./mock.js";

/** vitest's `provide` key: `inject("sendmockUrl")` in a test file. */
const PROVIDED_KEY = "sendmockUrl";
/**
 * Where the server setup started waits for the teardown: jest loads its global setup and its global
 * teardown as two modules (and may load two copies of what they share), in one process and one global object.
 */
const RUN_SERVER = Symbol.for("sendmock.runServer");

type RunServerSlot = Partial<Record<typeof RUN_SERVER, RunningSendMock>>;

export interface SendMockGlobalSetup {
  /**
   * Starts the run's sendmock (unless SENDMOCK_URL names one already) and publishes its URL as
   * `process.env.SENDMOCK_URL` and, under vitest, `provide("sendmockUrl", url)`. Resolves with the
   * teardown, as a vitest global setup's default export returns it.
   */
  setup: (context?: unknown) => Promise<() => Promise<void>>;
  /** Stops the sendmock the setup started, and takes SENDMOCK_URL back; nothing when it started none. */
  teardown: () => Promise<void>;
}

function provideUrl(context: unknown, url: string): void {
  const provide = (context as { provide?: unknown } | undefined)?.provide;
  if (typeof provide === "function") (provide as (key: string, value: string) => void).call(context, PROVIDED_KEY, url);
}

async function teardown(): Promise<void> {
  const slot = globalThis as RunServerSlot;
  const server = slot[RUN_SERVER];
  if (server === undefined) return;
  slot[RUN_SERVER] = undefined;
  if (process.env.SENDMOCK_URL === server.url) delete process.env.SENDMOCK_URL;
  await server.close();
}

/**
 * A global setup with options in code, which win over the environment as `serve`'s flags do
 * (sendmock/vitest/global-setup and sendmock/jest/global-setup are this without options).
 *
 * @example
 * // vitest: globalSetup: ["./test/sendmock-setup.ts"], that file holding
 * import { sendmockGlobalSetup } from "sendmock/testing";
 * export const { setup, teardown } = sendmockGlobalSetup({ templates: "emails" });
 * // jest: globalSetup: "./test/sendmock-setup.js", that file holding
 * module.exports = require("sendmock/testing").sendmockGlobalSetup({ templates: "emails" }).setup;
 */
export function sendmockGlobalSetup(options: SendMockOptions = {}): SendMockGlobalSetup {
  return {
    async setup(context) {
      // Set by a CI job that started one sendmock for every run, or by the setup of another project of this run.
      const given = process.env.SENDMOCK_URL;
      if (given !== undefined && given !== "") {
        provideUrl(context, given);
        return teardown;
      }
      // Loaded now, not with the module: sendmock/testing exports this factory, and its test files need no server.
      const [{ mockOptionsFromEnvironment }, { startSendMock }] = await Promise.all([import("./config/environment.js"), import("./mock.js")]);
      // The settings `serve` reads from the environment, on a free port unless SENDMOCK_PORT or the options say one: two runs at once must not meet on 4010.
      const server = await startSendMock({
        port: 0,
        log: (line) => process.stderr.write(`sendmock: ${line}\n`),
        ...mockOptionsFromEnvironment(process.env),
        ...options,
      });
      (globalThis as RunServerSlot)[RUN_SERVER] = server;
      process.env.SENDMOCK_URL = server.url;
      provideUrl(context, server.url);
      return teardown;
    },
    teardown,
  };
}
