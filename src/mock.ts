// Builds one mock from its options: state, services and app, each instance owning its own.

import type express from "express";
import { createApp } from "./app.js";
import { resolveConfig, type SendMockOptions } from "./config/resolve.js";
import type { OptionsSource } from "./config/check.js";
import type { ContractChecker } from "./contract/check.js";
import { ADMIN_CONTRACT, loadContract, SEND_CONTRACT } from "./contract/load.js";
import { isLoopbackHost } from "./domain/addresses.js";
import { createKeyCheck } from "./domain/api-keys.js";
import { createClockControl } from "./domain/clock.js";
import { createLifecycle, LIFECYCLE_STEP, type Lifecycle } from "./domain/lifecycle.js";
import { createOutcomeControl } from "./domain/outcomes.js";
import { createScheduler, type DueHandler } from "./domain/scheduler.js";
import { createFaultControl, type RespondLimits } from "./domain/faults.js";
import { withCapturedMessageCheck } from "./contract/captured-message.js";
import { createClientErrorResponder } from "./http/client-errors.js";
import { createApiSendService } from "./send/service.js";
import { loadTemplateCatalog } from "./domain/templates.js";
import { templateParsedAhead } from "./contract/parsed-templates.js";
import { listen } from "./server.js";
import { openStores, sharesOfMaxBytes, type Stores } from "./stores/index.js";
import { createWebhookControl } from "./domain/webhooks.js";
import { createWebhookDelivering } from "./domain/webhook-delivery.js";
import { webhookPayloadCheck } from "./contract/webhook-payload.js";
import { postWebhook } from "./http/webhook-client.js";
import { createHandles, type HandleScope, type SendMockHandles } from "./handles/index.js";
import { configViewOf, type SendMockConfig } from "./handles/settings.js";
import { operationChecks } from "./contract/operation-checks.js";
import type { RequestListener } from "node:http";
import { createProxyPipeline } from "./http/proxy-pipeline.js";
import { createSendEdge } from "./http/send-edge.js";
import { createSendWriter } from "./http/send-writer.js";
import { createErrorTranslator, describeUnexpected } from "./http/unexpected.js";
import { createSendPipeline } from "./send/pipeline.js";
import { createHostCheck } from "./send/host-guard.js";

/** A mock that is built but not listening: use `app` with supertest. */
export interface SendMock extends SendMockHandles {
  /** The express app, for supertest. */
  readonly app: express.Express;
  readonly config: SendMockConfig;
  /** Stops watching templates, ends pending waits and releases the store's connections. */
  close(): Promise<void>;
}

/** A mock listening on a socket. */
export interface RunningSendMock extends SendMock {
  /** `http://127.0.0.1:NNNNN` */
  readonly url: string;
  readonly port: number;
}

/** How often a replica on a shared store looks for due work it was not told about. */
const SHARED_DUE_WORK_POLL_MS = 1000;

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
  const { journal, faults, limiter, settings, clock } = stores;
  const checkedOutbox = withCapturedMessageCheck(stores.outbox, adminContract);
  // Filled once the lifecycle exists: the scheduler and the lifecycle need each other.
  const handlers: Record<string, DueHandler> = {};
  const scheduler = createScheduler({
    store: stores.dueWork,
    clock,
    handlers,
    // Shared due work may be scheduled by another replica, or left by one that stopped.
    ...(stores.shared && { maxSleepMs: SHARED_DUE_WORK_POLL_MS }),
    onError: (error, item) => config.log(`sendmock: due ${item.kind} ${item.id} failed: ${error instanceof Error ? error.message : String(error)}`),
  });
  const delivering = createWebhookDelivering({
    store: stores.webhooks,
    log: stores.deliveries,
    dueWork: stores.webhookDueWork,
    clock,
    messages: checkedOutbox,
    post: postWebhook,
    timeoutMs: config.webhookTimeoutMs,
    retryMs: config.webhookRetryMs,
    concurrency: config.webhookConcurrency,
    maxPending: config.maxPendingWebhookAttempts,
    payloadCacheBytes: sharesOfMaxBytes(config.maxBytes).webhookPayloads,
    payloadProblem: webhookPayloadCheck(sendContract),
    reportProblem: config.log,
    ...(stores.shared && { maxSleepMs: SHARED_DUE_WORK_POLL_MS }),
  });
  const lifecycle: Lifecycle = createLifecycle({
    settings: config.lifecycle,
    outbox: checkedOutbox,
    outcomes: stores.outcomes,
    scheduler,
    clock,
    onRecorded: (message, event) => delivering.eventRecorded(message, event),
    alsoPending: delivering,
  });
  handlers[LIFECYCLE_STEP] = (payload, dueAtMs) => lifecycle.runStep(payload, dueAtMs);
  const webhooks = createWebhookControl({
    store: stores.webhooks,
    log: stores.deliveries,
    maxWebhooks: config.maxRules,
    replay: (id) => delivering.replay(id),
  });
  // A cleared outbox, or a deleted message, takes its messages' pending steps with it.
  const outbox: typeof checkedOutbox = {
    ...checkedOutbox,
    async delete(id) {
      const deleted = await checkedOutbox.delete(id);
      if (deleted !== undefined) await lifecycle.forget([deleted]);
      return deleted;
    },
    async clear() {
      await checkedOutbox.clear();
      await lifecycle.clearPending();
    },
  };
  const clockControl = createClockControl({
    clock,
    offset: stores.clockOffset,
    async runDue() {
      const advancedTo = clock.nowMs();
      // Every step first: the attempts of the events they record then run side by side.
      await scheduler.runDue();
      await delivering.runDue(advancedTo);
    },
  });
  const outcomes = createOutcomeControl(stores.outcomes);
  const keys = createKeyCheck(config.apiKeys);
  const shutdown = new AbortController();
  const resetListeners = new Set<() => void>();

  const reset = async (): Promise<void> => {
    await Promise.all([
      outbox.clear(),
      journal.clear(),
      faults.reset(),
      stores.outcomes.reset(),
      limiter.reset(),
      stores.idempotency.reset(),
      settings.reset(),
      stores.clockOffset.reset(),
      stores.webhooks.reset(),
      stores.deliveries.clear(),
    ]);
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
  const respondLimits: RespondLimits = { bodyBytes: config.bodyLimitBytes, headerBytes: config.maxHeaderBytes, depth: config.maxRespondDepth };
  // One control for the library and POST /_mock/faults: both hold a rule to admin.yaml's FaultRuleInput, as the route checks it, and the control checks what that schema cannot say.
  const faultControl = createFaultControl(faults, respondLimits);

  const sendService = createApiSendService({ catalog: templates, outbox, lifecycle, now: () => clock.now() });
  // Steps and attempts left by an earlier run of a shared store, or scheduled before a restart, run when due.
  void scheduler.runDue().catch(() => undefined);
  void delivering.runDue(clock.nowMs()).catch(() => undefined);
  const { requestLog } = config;
  // A bug is told on the log the user gave, else on stderr: a library user sees it beside the failing test.
  const logBug = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const translate = createErrorTranslator((error) => logBug(describeUnexpected(error)));
  const sendChecks = operationChecks(sendContract, "/send", "post");
  const hostGuard = { boundToLoopback: isLoopbackHost(config.host), allowedHosts: config.allowedHosts };
  const checkHost = createHostCheck(hostGuard);
  const sendEdge = createSendEdge({
    respond: config.proxy
      ? createProxyPipeline({
          ...config.proxy,
          // Loaded here, as the response checker above is: swagger-parser is a CommonJS module that
          // requires an ES one, which a default jest project cannot load.
          checker: (await (await import("./contract/choice.js")).chooseContract(config.proxy.contract)).checker,
          // The real service decides what happens to what it accepted: no local lifecycle.
          sendService: createApiSendService({ catalog: templates, outbox, now: () => clock.now() }),
          settings,
          statusCodes: config.statusCodes,
          toApiError: translate,
          checkHost,
        })
      : createSendPipeline({
          keys,
          limiter,
          settings,
          idempotency: stores.idempotency,
          sendService,
          checks: sendChecks,
          statusCodes: config.statusCodes,
          toApiError: translate,
          checkHost,
          faults,
          allowFaultHeader: config.allowFaultHeader,
          allowMagicRecipients: config.allowMagicRecipients,
          shutdown: shutdown.signal,
        }),
    watchClient: config.proxy !== null,
    write: createSendWriter({
      checks: sendChecks,
      responseChecker,
      idempotency: stores.idempotency,
      journal,
      journalBodyBytes: config.journalBodyBytes,
      logRequest: requestLog?.send.bind(requestLog),
      settings,
      statusCodes: config.statusCodes,
      toApiError: translate,
      shutdown: shutdown.signal,
    }),
    bodyLimitBytes: config.bodyLimitBytes,
    corsOrigins: config.corsOrigins,
    reportUnexpected: (error) => logBug(describeUnexpected(error)),
  });
  const app = createApp({
    send: sendEdge,
    admin: {
      translate,
      contract: adminContract,
      sendContractSource: sendContract.source,
      adminContractSource: adminContract.source,
      config,
      keys,
      settings,
      outbox,
      journal,
      catalog: templates,
      faults: faultControl,
      outcomes,
      lifecycle,
      clock: clockControl,
      webhooks,
      reset,
      listeningPort,
      shutdown: shutdown.signal,
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
    scheduler.stop();
    delivering.stop();
    shutdown.abort(new Error("sendmock is closing"));
    templates.close();
  };
  // What the handles act on: the same state and controls the /_mock routes reach.
  const scope: HandleScope = {
    outbox,
    journal,
    faults: faultControl,
    outcomes,
    webhooks,
    clock: clockControl,
    settings,
    templates,
    reset,
  };
  const mock: SendMock = {
    app,
    config: configViewOf(config),
    ...createHandles(scope, adminContract),
    close() {
      stopWaiting();
      return stores.close();
    },
  };
  // Straight from node:http to the core for /send; express for the rest.
  const serve: RequestListener = (req, res) => {
    if (sendEdge.owns(req)) sendEdge.handle(req, res);
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
