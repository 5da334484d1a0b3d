// A test worker's sandbox on a sendmock it did not start (one server for many workers, docs/sandboxes.md): its messages,
// journal, rules and clock over /_mock, scoped by ?sandbox=, and what its sends carry to land there.

import { WaitTimeoutError } from "./domain/outbox.js";
import { sandboxAddressProblem } from "./domain/sandbox-address.js";
import { SANDBOX_RECIPIENT_DOMAIN } from "./domain/sandboxes.js";
import { checkable, type CheckableMessage, type ChecksOptions } from "./checkable-message.js";
import type { MessageChecksView } from "./http/message-checks.js";
import type { CapturedMessage, ClockView, FaultRule, FaultRuleInput, JournalEntry, MessageList, MessageStatus, OutcomeRule, OutcomeRuleInput } from "./wire.js";

export interface SandboxClientOptions {
  /** The running sendmock, such as `http://127.0.0.1:4010`. */
  url: string;
  /**
   * The sandbox's name; by default this worker's (`workerSandbox()`), which every test file the worker
   * runs shares: for a sandbox per file, use `setupSandbox()`.
   */
  sandbox?: string;
  /** The mock's `admin_token`, when it has one. */
  adminToken?: string;
}

/** What GET /_mock/messages filters by, as the library's `outbox` takes it. */
export interface RemoteMessageFilter {
  to?: string;
  recipient?: string;
  templateId?: string;
  subject?: string;
  since?: string;
  status?: MessageStatus;
  q?: string;
  limit?: number;
}

export interface SandboxClient {
  /** The server's URL. */
  readonly url: string;
  readonly sandbox: string;
  /** `{url}/sandbox/NAME`: a base URL whose `POST /send` lands in this sandbox, for an app's send client in any language. */
  readonly baseUrl: string;
  /** The header that sends a request into this sandbox: spread it into a send's headers. */
  readonly headers: Readonly<Record<"X-Sendmock-Sandbox", string>>;
  /**
   * `LOCAL@NAME.sandbox.sendmock.test`: an address whose sends land in this sandbox, for a test that only types an address.
   * Throws for a name no address can carry (with "_", or a part between dots that is empty or starts or ends with "-"):
   * use `baseUrl` or `headers` for such a sandbox.
   */
  address(localPart?: string): string;
  readonly outbox: {
    /** Each message has `checks()`, not enumerable, as the library's handle gives it. */
    list(filter?: RemoteMessageFilter): Promise<Omit<MessageList, "messages"> & { messages: CheckableMessage[] }>;
    /**
     * The newest message matching `filter`, as soon as there is one; rejects with a WaitTimeoutError naming its near misses
     * after `timeoutMs` (default 5000, at most 60000).
     */
    waitFor(filter?: RemoteMessageFilter, options?: { timeoutMs?: number }): Promise<CheckableMessage>;
    /** The named checks of the message `id` (`latest`: the newest), `GET /_mock/messages/{id}/checks`. */
    checks(id: string, options?: ChecksOptions): Promise<MessageChecksView>;
    clear(): Promise<void>;
  };
  readonly journal: { list(options?: { limit?: number }): Promise<{ requests: JournalEntry[]; total: number }> };
  readonly faults: { add(input: FaultRuleInput): Promise<FaultRule>; list(): Promise<FaultRule[]>; clear(): Promise<void> };
  readonly outcomes: { add(input: OutcomeRuleInput): Promise<OutcomeRule>; list(): Promise<OutcomeRule[]>; clear(): Promise<void> };
  readonly clock: { now(): Promise<ClockView>; advance(ms: number): Promise<ClockView> };
  /** Empties this sandbox alone. */
  reset(): Promise<void>;
  /** Empties this sandbox and releases its name, so it counts toward max_sandboxes no more (`DELETE /_mock/sandboxes/NAME`). */
  forget(): Promise<void>;
}

/**
 * This test worker's sandbox name, `PREFIX-N`: N is vitest's pool id or jest's worker id (the
 * process id elsewhere), so parallel workers on one server never share a sandbox. The files that run
 * in one worker, one after another, all get the same name: `setupSandbox()` gives each file its own.
 */
export function workerSandbox(prefix = "worker"): string {
  const id = process.env.VITEST_POOL_ID ?? process.env.JEST_WORKER_ID ?? String(process.pid);
  return `${prefix}-${id}`;
}

const DEFAULT_WAIT_MS = 5000;

function queryOf(filter: RemoteMessageFilter): Record<string, string> {
  const { templateId, limit, ...rest } = filter;
  const query: Record<string, string> = {};
  // A JavaScript caller may leave a field undefined: it filters by nothing.
  for (const [name, value] of Object.entries(rest as Record<string, unknown>)) if (typeof value === "string") query[name] = value;
  if (templateId !== undefined) query.template_id = templateId;
  if (limit !== undefined) query.limit = String(limit);
  return query;
}

/**
 * A client of `options.url`'s /_mock calls, each scoped to one sandbox: by default the worker's,
 * shared by every test file that runs in the worker, so a file that does not reset it first sees
 * what the previous file left. For a sandbox per file, empty when the file starts, use `setupSandbox()`.
 */
export function sandboxClient(options: SandboxClientOptions): SandboxClient {
  const sandbox = options.sandbox ?? workerSandbox();
  const base = options.url.replace(/\/$/, "");
  const auth: Record<string, string> = options.adminToken === undefined ? {} : { Authorization: `Bearer ${options.adminToken}` };

  async function call<T>(method: string, path: string, query: Record<string, string> | null = {}, body?: unknown): Promise<T> {
    // null: a call that names the sandbox in its path, not its query.
    const search = query === null ? "" : `?${new URLSearchParams({ ...query, sandbox }).toString()}`;
    const response = await fetch(`${base}${path}${search}`, {
      method,
      headers: { ...auth, ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`sendmock: ${method} ${path} in sandbox ${sandbox} responded with ${response.status}: ${text}`);
    return (text === "" ? undefined : JSON.parse(text)) as T;
  }

  const checksOf = (id: string, checksOptions: ChecksOptions): Promise<MessageChecksView> =>
    call("GET", `/_mock/messages/${encodeURIComponent(id)}/checks`, checksOptions.online === true ? { online: "true" } : {});
  const withChecks = (message: CapturedMessage): CheckableMessage => checkable(message, (checksOptions) => checksOf(message.id, checksOptions));

  return {
    url: base,
    sandbox,
    baseUrl: `${base}/sandbox/${sandbox}`,
    headers: { "X-Sendmock-Sandbox": sandbox },
    address(localPart = "user") {
      // An address the send contract refuses would fail the send as invalid_recipient, far from the cause: said here instead.
      const problem = sandboxAddressProblem(sandbox);
      if (problem !== undefined)
        throw new Error(
          `sendmock: the sandbox ${JSON.stringify(sandbox)} cannot be named by an address: ${problem.why}; send to its baseUrl (${base}/sandbox/${sandbox}) or with its headers (X-Sendmock-Sandbox) instead, or ${problem.rename}`,
        );
      return `${localPart}@${sandbox}.${SANDBOX_RECIPIENT_DOMAIN}`;
    },
    outbox: {
      async list(filter = {}) {
        const page = await call<MessageList>("GET", "/_mock/messages", queryOf(filter));
        return { ...page, messages: page.messages.map(withChecks) };
      },
      async waitFor(filter = {}, waitOptions = {}) {
        const timeoutMs = waitOptions.timeoutMs ?? DEFAULT_WAIT_MS;
        const found = await call<MessageList>("GET", "/_mock/messages", { ...queryOf({ ...filter, limit: 1 }), wait_ms: String(timeoutMs) });
        const [message] = found.messages;
        if (message !== undefined) return withChecks(message);
        // The server's words for the wait, near misses and all: the same error as the library's handles throw.
        const { timed_out: timedOut } = found;
        throw new WaitTimeoutError(
          timedOut?.message ?? `no message in sandbox ${sandbox} within ${String(timeoutMs)} ms`,
          timeoutMs,
          timedOut?.near_misses ?? [],
        );
      },
      checks: (id, checksOptions = {}) => checksOf(id, checksOptions),
      clear: () => call<undefined>("DELETE", "/_mock/messages"),
    },
    journal: { list: (listOptions = {}) => call("GET", "/_mock/requests", listOptions.limit === undefined ? {} : { limit: String(listOptions.limit) }) },
    faults: {
      add: (input) => call("POST", "/_mock/faults", {}, input),
      list: async () => (await call<{ faults: FaultRule[] }>("GET", "/_mock/faults")).faults,
      clear: () => call<undefined>("DELETE", "/_mock/faults"),
    },
    outcomes: {
      add: (input) => call("POST", "/_mock/outcomes", {}, input),
      list: async () => (await call<{ outcomes: OutcomeRule[] }>("GET", "/_mock/outcomes")).outcomes,
      clear: () => call<undefined>("DELETE", "/_mock/outcomes"),
    },
    clock: {
      now: () => call("GET", "/_mock/clock"),
      advance: (ms) => call("POST", "/_mock/clock", {}, { advance_ms: ms }),
    },
    reset: () => call<undefined>("POST", "/_mock/reset"),
    forget: () => call<undefined>("DELETE", `/_mock/sandboxes/${sandbox}`, null),
  };
}
