// The inspection API under /_mock, validated from openapi/admin.yaml.

import express, { type NextFunction, type Request, type Response } from "express";
import type { OpenAPIV3_1 } from "openapi-types";
import type { ResolvedConfig } from "../config.js";
import type { KeyCheck } from "../domain/api-keys.js";
import type { ClockControl } from "../domain/clock.js";
import type { Lifecycle } from "../domain/lifecycle.js";
import type { OutcomeControl } from "../domain/outcomes.js";
import type { WebhookControl } from "../domain/webhooks.js";
import type { FaultControl } from "../domain/faults.js";
import type { Journal } from "../domain/journal.js";
import { WaitTimeoutError, type MessageFilter, type Outbox } from "../domain/outbox.js";
import type { SettingsStore } from "../domain/settings.js";
import { renderTemplate } from "../domain/render.js";
import { messageToEml } from "../domain/eml.js";
import type { TemplateCatalog } from "../domain/templates.js";
import { ApiError } from "../errors.js";
import type { ClockAdvance, ClockView, ConfigPatch, EventInput, FaultRuleInput, MessageStatus, WebhookInput } from "../wire.js";
import { readAdminBodies } from "./admin-body.js";
import { requireAdminToken } from "./auth.js";
import { streamEvents } from "./events.js";
import { contractOperations } from "../contract/operation-checks.js";
import { HTTP_METHODS } from "../contract/document-pointers.js";
import { checkDocumentedCalls } from "./contract-steps.js";
import { createErrorHandler } from "./error-handler.js";
import type { Contract } from "../contract/load.js";
import { configView, templateDetail, templateSummary } from "./views.js";
import { settingsChangeOf } from "./settings-change.js";

export interface AdminRoutesDeps {
  /** Whatever a route threw -> the ApiError to answer with, a bug logged on the way. */
  translate: (error: unknown, body: unknown) => ApiError;
  contract: Contract;
  /** The send contract as written, served at GET /openapi.yaml. */
  sendContractSource: string;
  /** This API's own contract as written, served at GET /_mock/openapi.yaml. */
  adminContractSource: string;
  config: ResolvedConfig;
  keys: KeyCheck;
  settings: SettingsStore;
  outbox: Outbox;
  journal: Journal;
  catalog: TemplateCatalog;
  /** Checks a rule (schema, parameters per kind, `respond` limits) as it does for the library. */
  faults: FaultControl;
  outcomes: OutcomeControl;
  lifecycle: Lifecycle;
  clock: ClockControl;
  webhooks: WebhookControl;
  reset: () => Promise<void>;
  listeningPort: () => number;
  /** Aborted when the server closes, so long waits and event streams end with it. */
  shutdown: AbortSignal;
  onReset: (listener: () => void) => () => void;
}

/** The rendered HTML may come from anywhere: inline styles and inline images, no script, no network. */
const PREVIEW_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; sandbox";

function queryString(req: Request, name: string): string | undefined {
  const value = req.query[name];
  return typeof value === "string" ? value : undefined;
}

function queryNumber(req: Request, name: string): number | undefined {
  const value = req.query[name];
  if (typeof value === "number") return value;
  return typeof value === "string" && value !== "" ? Number(value) : undefined;
}

function messageFilter(req: Request): MessageFilter {
  return {
    to: queryString(req, "to"),
    recipient: queryString(req, "recipient"),
    templateId: queryString(req, "template_id"),
    subject: queryString(req, "subject"),
    since: queryString(req, "since"),
    // The contract's enum has checked it.
    status: queryString(req, "status") as MessageStatus | undefined,
    q: queryString(req, "q"),
    limit: queryNumber(req, "limit"),
  };
}

function routeParam(req: Request, name: string): string {
  const value = req.params[name];
  return typeof value === "string" ? value : "";
}

/** Resolves when `signal` aborts; a closed client or a stopping server ends a long wait early. */
function abortSignalFor(req: Request, shutdown: AbortSignal): AbortSignal {
  const clientGone = new AbortController();
  req.once("close", () => clientGone.abort(new Error("client closed the request")));
  return AbortSignal.any([clientGone.signal, shutdown]);
}

/** Each path of the contract in express syntax (`{id}` -> `:id`) with the methods it allows. */
function documentedMethods(contract: OpenAPIV3_1.Document): [string, string[]][] {
  return Object.entries(contract.paths ?? {}).map(([openApiPath, item]) => [
    openApiPath.replace(/\{(\w+)\}/g, ":$1"),
    HTTP_METHODS.filter((method) => item?.[method] !== undefined).map((method) => method.toUpperCase()),
  ]);
}

export function createAdminRoutes(deps: AdminRoutesDeps): express.Router {
  const { outbox, journal, catalog, settings } = deps;
  const router = express.Router();

  router.use("/_mock", requireAdminToken(deps.config.adminToken), ...readAdminBodies("100kb"));
  // The inspection API answers its errors in shape a, whatever the send API's shape is.
  const answerError = createErrorHandler({ shape: () => "a", statusCodes: {}, quoteBody: true, translate: deps.translate });
  router.use(checkDocumentedCalls(contractOperations(deps.contract), answerError));

  router.get("/openapi.yaml", (_req, res) => {
    res.type("application/yaml").send(deps.sendContractSource);
  });

  router.get("/_mock/openapi.yaml", (_req, res) => {
    res.type("application/yaml").send(deps.adminContractSource);
  });

  router.get("/_mock/health", (_req, res) => {
    res.json({ ok: true });
  });

  router.get("/_mock/messages", async (req, res) => {
    const filter = messageFilter(req);
    const waitMs = queryNumber(req, "wait_ms") ?? 0;
    let found = await outbox.listSerialized(filter);
    if (found.total === 0 && waitMs > 0) {
      try {
        await outbox.waitFor(filter, { timeoutMs: waitMs, signal: abortSignalFor(req, deps.shutdown) });
        found = await outbox.listSerialized(filter);
      } catch (error) {
        if (!(error instanceof WaitTimeoutError) && !req.destroyed && !deps.shutdown.aborted) throw error;
      }
    }
    // Written as stored: serializing and validating 50 full messages on every call was most of
    // this route's cost. Each message was checked against admin.yaml when it was captured.
    res.type("application/json").send(`{"messages":[${found.messages.join(",")}],"total":${String(found.total)}${found.truncated ? ',"truncated":true' : ""}}`);
  });

  router.delete("/_mock/messages", async (_req, res) => {
    await outbox.clear();
    res.status(204).end();
  });

  const findMessage = async (req: Request) => {
    const id = routeParam(req, "id");
    const message = await outbox.get(id);
    if (!message) throw new ApiError("not_found", `No captured message with id ${JSON.stringify(id)}`);
    return message;
  };

  router.get("/_mock/messages/:id", async (req, res) => {
    res.json(await findMessage(req));
  });

  router.delete("/_mock/messages/:id", async (req, res) => {
    const id = routeParam(req, "id");
    if ((await outbox.delete(id)) === undefined) throw new ApiError("not_found", `No captured message with id ${JSON.stringify(id)}`);
    res.status(204).end();
  });

  router.post("/_mock/messages/:id/events", async (req, res) => {
    const { type } = req.body as EventInput;
    res.status(201).json(await deps.lifecycle.appendNow(routeParam(req, "id"), type));
  });

  router.get("/_mock/messages/:id/html", async (req, res) => {
    const message = await findMessage(req);
    if (message.html === null) throw new ApiError("not_found", `Message ${message.id} has no HTML part (template ${message.template_id} is text only)`);
    res.set("Content-Security-Policy", PREVIEW_CSP);
    res.set("X-Content-Type-Options", "nosniff");
    res.type("text/html").send(message.html);
  });

  router.get("/_mock/messages/:id/eml", async (req, res) => {
    const message = await findMessage(req);
    const eml = await messageToEml(message, deps.config.sender);
    // Quoted as the interface writes it (express leaves a token unquoted); a message id is
    // the mock's own `msg_<uuid>`, so it holds no quote or line break to escape.
    res.set("Content-Disposition", `attachment; filename="${message.id}.eml"`);
    res.type("message/rfc822").send(eml);
  });

  router.get("/_mock/requests", async (req, res) => {
    const { requests, total, truncated } = await journal.list({ limit: queryNumber(req, "limit") });
    res.json(truncated ? { requests, total, truncated } : { requests, total });
  });

  router.get("/_mock/templates", (_req, res) => {
    res.json({ folder: catalog.folder, templates: catalog.list().map(templateSummary) });
  });

  const findTemplate = (req: Request) => {
    const id = routeParam(req, "id");
    const entry = catalog.list().find((candidate) => candidate.id === id);
    if (!entry) throw new ApiError("not_found", `No template ${JSON.stringify(id)} in ${catalog.folder}`);
    return entry;
  };

  router.get("/_mock/templates/:id", (req, res) => {
    res.json(templateDetail(findTemplate(req)));
  });

  router.get("/_mock/templates/:id/preview", (req, res) => {
    const entry = findTemplate(req);
    const { template } = entry;
    if (!template) throw new ApiError("not_found", `Template ${entry.id} failed to load: ${entry.error ?? ""}`);
    if (!template.sampleData) throw new ApiError("not_found", `Template ${entry.id} has no sample_data to preview with`);
    const rendered = renderTemplate(template, template.sampleData);
    res.json({ subject: rendered.subject, html: rendered.html ?? null, text: rendered.text ?? null });
  });

  router.get(
    "/_mock/events",
    streamEvents({
      outbox,
      journal,
      webhooks: deps.webhooks,
      onReset: deps.onReset,
      shutdown: deps.shutdown,
      maxStreams: deps.config.maxEventStreams,
      bufferBytes: deps.config.eventBufferBytes,
    }),
  );

  const currentConfig = async () =>
    configView({
      config: deps.config,
      settings: settings.current(),
      keys: deps.keys,
      stats: await outbox.stats(),
      port: deps.listeningPort(),
    });

  router.get("/_mock/config", async (_req, res) => {
    res.json(await currentConfig());
  });

  router.patch("/_mock/config", async (req, res) => {
    await settings.update(settingsChangeOf(req.body as ConfigPatch));
    res.json(await currentConfig());
  });

  router.get("/_mock/faults", async (_req, res) => {
    res.json({ faults: await deps.faults.list() });
  });

  router.post("/_mock/faults", async (req, res) => {
    res.status(201).json(await deps.faults.add(req.body as FaultRuleInput));
  });

  router.delete("/_mock/faults", async (_req, res) => {
    await deps.faults.clear();
    res.status(204).end();
  });

  router.delete("/_mock/faults/:id", async (req, res) => {
    const id = routeParam(req, "id");
    if (!(await deps.faults.remove(id))) throw new ApiError("not_found", `No fault rule with id ${JSON.stringify(id)}`);
    res.status(204).end();
  });

  router.get("/_mock/outcomes", async (_req, res) => {
    res.json({ outcomes: await deps.outcomes.list() });
  });

  router.post("/_mock/outcomes", async (req, res) => {
    res.status(201).json(await deps.outcomes.add(req.body as Parameters<OutcomeControl["add"]>[0]));
  });

  router.delete("/_mock/outcomes", async (_req, res) => {
    await deps.outcomes.clear();
    res.status(204).end();
  });

  router.delete("/_mock/outcomes/:id", async (req, res) => {
    const id = routeParam(req, "id");
    if (!(await deps.outcomes.remove(id))) throw new ApiError("not_found", `No outcome rule with id ${JSON.stringify(id)}`);
    res.status(204).end();
  });

  router.get("/_mock/webhooks", async (_req, res) => {
    res.json({ webhooks: await deps.webhooks.list() });
  });

  router.post("/_mock/webhooks", async (req, res) => {
    res.status(201).json(await deps.webhooks.add(req.body as WebhookInput));
  });

  router.get("/_mock/webhooks/deliveries", async (req, res) => {
    const deliveries = await deps.webhooks.deliveries({
      messageId: queryString(req, "message_id"),
      webhookId: queryString(req, "webhook_id"),
      limit: queryNumber(req, "limit"),
    });
    res.json({ deliveries });
  });

  router.post("/_mock/webhooks/deliveries/:id/replay", async (req, res) => {
    res.status(201).json(await deps.webhooks.replay(routeParam(req, "id")));
  });

  router.delete("/_mock/webhooks/:id", async (req, res) => {
    const id = routeParam(req, "id");
    if (!(await deps.webhooks.remove(id))) throw new ApiError("not_found", `No webhook with id ${JSON.stringify(id)}`);
    res.status(204).end();
  });

  const clockView = (): ClockView => ({ now: deps.clock.now().toISOString(), offset_ms: deps.clock.offsetMs() });

  router.get("/_mock/clock", (_req, res) => {
    res.json(clockView());
  });

  router.post("/_mock/clock", async (req, res) => {
    await deps.clock.advance((req.body as ClockAdvance).advance_ms);
    res.json(clockView());
  });

  router.post("/_mock/reset", async (_req, res) => {
    await deps.reset();
    res.status(204).end();
  });

  for (const [documentedPath, methods] of documentedMethods(deps.contract.document)) {
    router.all(documentedPath, (req: Request, res: Response, next: NextFunction) => {
      res.set("Allow", methods.join(", "));
      next(new ApiError("method_not_allowed", `Method ${req.method} is not allowed on ${req.path}; use ${methods.join(" or ")}`));
    });
  }

  router.use("/_mock", (req: Request, _res: Response, next: NextFunction) => {
    next(new ApiError("not_found", `No inspection call ${req.method} /_mock${req.path}`));
  });

  router.use("/_mock", answerError);

  return router;
}
