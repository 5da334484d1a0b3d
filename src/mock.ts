// Builds one mock from its options: state, services and app, each instance owning its own.

import type express from "express";
import { createApp } from "./app.js";
import { resolveConfig, type SendMockOptions } from "./config/resolve.js";
import type { OptionsSource } from "./config/check.js";
import type { ContractChecker } from "./contract/check.js";
import { ADMIN_CONTRACT, loadContract, SEND_CONTRACT } from "./contract/load.js";
import { isLoopbackHost } from "./domain/addresses.js";
import { createKeyCheck } from "./domain/api-keys.js";
import { createClientErrorResponder } from "./http/client-errors.js";
import { loadTemplateCatalog } from "./domain/templates.js";
import { templateParsedAhead } from "./contract/parsed-templates.js";
import { listen } from "./server.js";
import { openStores, sharesOfMaxBytes, type Stores } from "./stores/index.js";
import { createPayloadCache, createWebhookPool } from "./domain/webhook-delivery.js";
import { checkSandboxName, DEFAULT_SANDBOX } from "./domain/sandboxes.js";
import { buildSandboxScope, type SandboxScope, type ScopeParts } from "./sandboxes/scope.js";
import { rejectingAsApiError } from "./errors.js";
import { createSandboxes } from "./sandboxes/index.js";
import { createWaitExplainer } from "./sandboxes/near-misses.js";
import { trackingRules } from "./domain/layered-rules.js";
import { everySandboxView } from "./sandboxes/everywhere.js";
import type { AdminScopeDeps } from "./http/admin/index.js";
import { createHandles, type HandleScope, type SendMockHandles } from "./handles/index.js";
import { configViewOf, type SendMockConfig } from "./handles/settings.js";
import { operationChecks } from "./contract/operation-checks.js";
import type { RequestListener } from "node:http";
import { createProxyPipeline } from "./http/proxy-pipeline.js";
import { createSendEdge } from "./http/send-edge.js";
import { createSendRoute } from "./http/send-route.js";
import { checksOf } from "./http/message-checks.js";
import { createOpenStreams } from "./http/events.js";
import { createSendWriter } from "./http/send-writer.js";
import { createErrorTranslator, describeUnexpected } from "./http/unexpected.js";
import { createSendPipeline } from "./send/pipeline.js";
import { createHostCheck } from "./send/host-guard.js";

/** A mock that is built but not listening: use `app` with supertest. */
export interface SendMock extends SendMockHandles {
  /** The express app, for supertest. */
  readonly app: express.Express;
  readonly config: SendMockConfig;
  /**
   * The same handles, scoped to the sandbox `name` (docs/sandboxes.md): its messages, journal,
   * rules, webhooks and clock, and a `reset()` of that sandbox alone. Settings and templates stay
   * the mock's. Rejects with an `invalid_request` ApiError for a name that breaks the rule, or a
   * new name past `max_sandboxes`.
   */
  sandbox(name: string): Promise<SendMockHandles>;
  /** Stops watching templates, ends pending waits and releases the store's connections. */
  close(): Promise<void>;
}

/** A mock listening on a socket. */
export interface RunningSendMock extends SendMock {
  /** `http://127.0.0.1:NNNNN` */
  readonly url: string;
  readonly port: number;
}

async function buildSendMock(options: SendMockOptions, optionsSource: OptionsSource, listeningPort: () => number) {
  const config = resolveConfig(options, optionsSource);
  const [sendContract, adminContract, templates] = await Promise.all([
    loadContract(SEND_CONTRACT),
    loadContract(ADMIN_CONTRACT),
    loadTemplateCatalog(config.templates, { watch: config.watchTemplates, log: config.log, parsedAhead: templateParsedAhead }),
  ]);
  // Both contracts' checks are loaded (built ahead) or compiled with the routes, before the mock
  // is handed out: no request compiles anything.
  let stores: Stores;
  try {
    stores = await openStores(config);
  } catch (error) {
    templates.close();
    throw error;
  }
  const { settings } = stores;
  const scopeParts: ScopeParts = {
    config,
    adminContract,
    sendContract,
    catalog: templates,
    payloadCache: createPayloadCache(sharesOfMaxBytes(config.maxBytes).webhookPayloads),
    webhookPool: createWebhookPool(config.webhookConcurrency),
    // The sandboxes are built below, before any wait can run out.
    explainWait: createWaitExplainer(() => sandboxes),
    totals: {
      faults: () => totalOf((scope) => scope.faults.count()),
      faultBytes: () => totalOf((scope) => scope.faults.bytes()),
      outcomes: () => totalOf((scope) => scope.outcomes.count()),
      // A webhook is a few hundred bytes: its list is cheap to copy.
      webhooks: () => totalOf(async (scope) => (await scope.webhooks.list()).length),
    },
  };
  /** How many things of one kind every sandbox in use holds together; read when one more is added, never by a send. */
  const totalOf = async (countOf: (scope: SandboxScope) => Promise<number>): Promise<number> =>
    (await Promise.all((await sandboxes.all()).map(countOf))).reduce((sum, each) => sum + each, 0);
  const openedStores = stores;
  const openedDefault = await stores.openScope(DEFAULT_SANDBOX);
  // The default sandbox's rules apply in every sandbox after its own: tracked, so that a sandbox skips them when there are none.
  const defaultStores = {
    ...openedDefault,
    faults: trackingRules(openedDefault.faults, { startUpRules: config.faults.length, shared: stores.shared }),
    outcomes: trackingRules(openedDefault.outcomes, { startUpRules: config.outcomeRules.length, shared: stores.shared }),
  };
  const sandboxes = createSandboxes({
    registry: stores.sandboxes,
    maxSandboxes: config.maxSandboxes,
    shared: stores.shared,
    defaultScope: buildSandboxScope(DEFAULT_SANDBOX, defaultStores, scopeParts),
    build: async (name) => {
      // The rules and webhooks added without a sandbox apply in every sandbox, after its own.
      const everywhere = { faults: defaultStores.faults, outcomes: defaultStores.outcomes, webhooks: defaultStores.webhooks };
      const scope = buildSandboxScope(name, await openedStores.openScope(name), { ...scopeParts, everywhere });
      scope.runLeftWork();
      return scope;
    },
  });
  const sandbox = sandboxes.defaultScope;
  const { journal, idempotency } = sandbox;
  const keys = createKeyCheck(config.apiKeys);
  const shutdown = new AbortController();
  const resetListeners = new Set<() => void>();

  const reset = async (): Promise<void> => {
    await Promise.all([sandboxes.resetAll(), settings.reset()]);
    for (const listener of resetListeners) listener();
  };
  const onReset = (listener: () => void): (() => void) => {
    resetListeners.add(listener);
    return () => resetListeners.delete(listener);
  };

  // Built on first use: only a proxy and the responses of `respond` faults are judged outside
  // express, and building it took ~90 ms (then ~40 ms to compile the first response's schemas).
  let checking: Promise<ContractChecker> | undefined;
  const responseChecker = (): Promise<ContractChecker> =>
    (checking ??= import("./contract/check.js").then((module) => module.createContractChecker(sendContract)));
  // Steps and attempts left by an earlier run of a shared store, or scheduled before a restart, run when due.
  sandbox.runLeftWork();
  const { requestLog } = config;
  // A bug is told on the log the user gave, else on stderr: a library user sees it beside the failing test.
  const logBug = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const translate = createErrorTranslator((error) => logBug(describeUnexpected(error)));
  const sendChecks = operationChecks(sendContract, "/send", "post");
  const hostGuard = { boundToLoopback: isLoopbackHost(config.host), allowedHosts: config.allowedHosts };
  const checkHost = createHostCheck(hostGuard);
  // POST /send: read by the edge, answered by the pipeline of the mode, written by the one writer (http/send-route.ts names the order).
  const sendRoute = createSendRoute({
    edge: createSendEdge({
      watchClient: config.proxy !== null,
      sandboxPaths: config.proxy === null,
      bodyLimitBytes: config.bodyLimitBytes,
      corsOrigins: config.corsOrigins,
    }),
    pipeline: config.proxy
      ? createProxyPipeline({
          ...config.proxy,
          // Loaded here, as the response checker above is: swagger-parser is a CommonJS module that
          // requires an ES one, which a default jest project cannot load.
          checker: (await (await import("./contract/choice.js")).chooseContract(config.proxy.contract)).checker,
          // The real service decides what happens to what it accepted: no local lifecycle.
          sendService: sandbox.relayService,
          settings,
          statusCodes: config.statusCodes,
          toApiError: translate,
          checkHost,
        })
      : createSendPipeline({
          keys,
          sandboxOf: (name) => sandboxes.scopeOf(name),
          settings,
          checks: sendChecks,
          statusCodes: config.statusCodes,
          toApiError: translate,
          checkHost,
          allowFaultHeader: config.allowFaultHeader,
          allowMagicRecipients: config.allowMagicRecipients,
          shutdown: shutdown.signal,
        }),
    writer: createSendWriter({
      checks: sendChecks,
      responseChecker,
      idempotency,
      journal,
      journalBodyBytes: config.journalBodyBytes,
      logRequest: requestLog?.send.bind(requestLog),
      settings,
      statusCodes: config.statusCodes,
      toApiError: translate,
      shutdown: shutdown.signal,
    }),
    reportUnexpected: (error) => logBug(describeUnexpected(error)),
  });
  // What /_mock calls act on: without a sandbox, every sandbox's view; with one, that sandbox's.
  const everywhere: AdminScopeDeps = { ...everySandboxView(sandboxes, stores.bounds, config.maxPageBytes, scopeParts.explainWait), reset };
  // A scoped POST /_mock/reset lets the sandbox's name go as well (DELETE /_mock/sandboxes/NAME): the same object for
  // the same scope, as the routes built over it are kept by it.
  const forgettingViews = new WeakMap<SandboxScope, AdminScopeDeps>();
  const resettingByForget = (scope: SandboxScope): AdminScopeDeps => {
    let view = forgettingViews.get(scope);
    if (view === undefined) {
      view = { ...scope, reset: () => sandboxes.forget(scope.name) };
      forgettingViews.set(scope, view);
    }
    return view;
  };
  const app = createApp({
    send: sendRoute,
    admin: {
      translate,
      contract: adminContract,
      sendContractSource: sendContract.source,
      adminContractSource: adminContract.source,
      config,
      keys,
      settings,
      ...everywhere,
      // A sandbox's scope is what its /_mock calls act on, as it is: the same object each time, so its routes are built once.
      scopeOf: (name, read): Promise<AdminScopeDeps> =>
        name === undefined ? Promise.resolve(everywhere) : read ? sandboxes.viewOf(name) : sandboxes.scopeOf(name).then(resettingByForget),
      sandboxes,
      catalog: templates,
      listeningPort,
      shutdown: shutdown.signal,
      // One count for the mock: each sandbox's /_mock/events has its own router, and max_event_streams bounds them all.
      openStreams: createOpenStreams(config.maxEventStreams),
      onReset,
    },
    corsOrigins: config.corsOrigins,
    hostGuard,
    settings,
    statusCodes: config.statusCodes,
    translate,
    logInspectionCall: requestLog?.inspection?.bind(requestLog),
  });

  /** Ends long waits and event streams and stops watching templates; the stores stay open. */
  const stopWaiting = (): void => {
    sandboxes.stop();
    shutdown.abort(new Error("sendmock is closing"));
    templates.close();
  };
  // What the handles act on: the same state and controls the /_mock routes reach, a sandbox's or the default one's.
  const handleScopeOf = (scope: SandboxScope, resetScope: () => Promise<void>): HandleScope => ({
    outbox: scope.outbox,
    journal: scope.journal,
    faults: scope.faults,
    outcomes: scope.outcomes,
    webhooks: scope.webhooks,
    clock: scope.clock,
    settings,
    templates,
    checkMessage: (message, online) => checksOf(message, config, online),
    reset: resetScope,
  });
  const scope = handleScopeOf(sandbox, reset);
  const mock: SendMock = {
    app,
    config: configViewOf(config),
    ...createHandles(scope, adminContract),
    sandbox: rejectingAsApiError(async (name: string) => {
      const named = await sandboxes.scopeOf(checkSandboxName(name, "A sandbox's name"));
      return createHandles(
        handleScopeOf(named, () => named.reset()),
        adminContract,
      );
    }),
    close() {
      stopWaiting();
      return stores.close();
    },
  };
  // Straight from node:http to the core for /send; express for the rest.
  const serve: RequestListener = (req, res) => {
    if (sendRoute.owns(req)) sendRoute.handle(req, res);
    else app(req, res);
  };
  return { mock, scope, serve, stopWaiting, closeStores: () => stores.close() };
}

/**
 * Builds a mock without listening, for supertest.
 *
 * @example
 * const mock = await createSendMock({ templates: "fixtures/templates" });
 * await request(mock.app).post("/send").set("Authorization", "Bearer k").send(body);
 */
export function createSendMock(options: SendMockOptions = {}): Promise<SendMock> {
  return createSendMockAndScope(options).then(({ mock }) => mock);
}

/** A mock and the scope its handles act on: for sendmock's own tests, which put state in the stores as a send does. Not in the package's API. */
export function createSendMockAndScope(options: SendMockOptions = {}): Promise<{ mock: SendMock; scope: HandleScope }> {
  return buildSendMock(options, "options", () => options.port ?? 0).then(({ mock, scope }) => ({ mock, scope }));
}

/**
 * Builds a mock and listens; `port: 0` picks a free port.
 *
 * @example
 * const mock = await startSendMock({ port: 0 });
 * await fetch(`${mock.url}/send`, { method: "POST", headers, body });
 * const message = await mock.outbox.waitFor({ to: "ada@example.com" }, { timeoutMs: 2000 });
 * await mock.close();
 */
export async function startSendMock(options: SendMockOptions = {}, optionsSource: OptionsSource = "options"): Promise<RunningSendMock> {
  let port = 0;
  const { mock, serve, stopWaiting, closeStores } = await buildSendMock(options, optionsSource, () => port);
  let server;
  try {
    const { config } = mock;
    const limits = {
      headersTimeoutMs: config.headersTimeoutMs,
      requestTimeoutMs: config.requestTimeoutMs,
      keepAliveTimeoutMs: config.keepAliveTimeoutMs,
      maxHeaderBytes: config.maxHeaderBytes,
    };
    server = await listen(serve, {
      host: config.host,
      port: config.port,
      limits,
      respondToClientError: createClientErrorResponder({ limits, currentShape: () => mock.settings.current().responseShape }),
    });
  } catch (error) {
    await mock.close();
    throw error;
  }
  port = server.port;
  const running = server;
  const { config } = mock;
  return {
    ...mock,
    url: running.url,
    port: running.port,
    // The stores close last: requests still in flight when the stop began need them to finish.
    async close() {
      stopWaiting();
      await running.close({ forceAfterMs: config.shutdownGraceMs });
      await closeStores();
    },
  };
}
