// The inspection API under /_mock: the shared middleware, each resource's routes, then the responses for what no route serves.

import express, { type NextFunction, type Request, type Response } from "express";
import type { OpenAPIV3_1 } from "openapi-types";
import type { ResolvedConfig } from "../../config/resolve.js";
import { HTTP_METHODS } from "../../contract/document-pointers.js";
import type { Contract } from "../../contract/load.js";
import { contractOperations } from "../../contract/operation-checks.js";
import { ApiError } from "../../errors.js";
import { readAdminBodies } from "../admin-body.js";
import { requireAdminToken } from "../auth.js";
import { checkDocumentedCalls } from "../contract-steps.js";
import { createErrorHandler } from "../error-handler.js";
import { createClockRoutes, type ClockRoutesDeps } from "./clock.js";
import { createConfigRoutes, type ConfigRoutesDeps } from "./config.js";
import { createDocumentRoutes, type DocumentRoutesDeps } from "./documents.js";
import { createEventRoutes, type EventRoutesDeps } from "./events.js";
import { createFaultRoutes, type FaultRoutesDeps } from "./faults.js";
import { createHealthRoutes } from "./health.js";
import { createMessageRoutes, type MessageRoutesDeps } from "./messages.js";
import { createOutcomeRoutes, type OutcomeRoutesDeps } from "./outcomes.js";
import { createRequestRoutes, type RequestRoutesDeps } from "./requests.js";
import { createResetRoutes, type ResetRoutesDeps } from "./reset.js";
import { createSandboxRoutes, type SandboxRoutesDeps } from "./sandboxes.js";
import { createTemplateRoutes, type TemplateRoutesDeps } from "./templates.js";
import { createWebhookRoutes, type WebhookRoutesDeps } from "./webhooks.js";
import { sandboxOfCall } from "./sandbox.js";

/** What the middleware around the resources uses. */
export interface AdminFrameDeps {
  /** Whatever a route threw -> the ApiError to respond with, a bug logged on the way. */
  translate: (error: unknown, body: unknown) => ApiError;
  /** admin.yaml: every documented call is held to it, and its paths decide what is a 405. */
  contract: Contract;
  config: Pick<ResolvedConfig, "adminToken" | "maxSandboxes">;
}

/** What the resources a sandbox scopes act on: one sandbox's state, or every sandbox's at once. */
export type AdminScopeDeps = Pick<AdminRoutesDeps, "outbox" | "journal" | "lifecycle" | "clock" | "faults" | "outcomes" | "webhooks" | "reset">;

/** Each resource's deps, given as one object: a field two resources use is the same value. */
export type AdminRoutesDeps = AdminFrameDeps &
  AdminSandboxDeps &
  DocumentRoutesDeps &
  MessageRoutesDeps &
  RequestRoutesDeps &
  TemplateRoutesDeps &
  EventRoutesDeps &
  ConfigRoutesDeps &
  FaultRoutesDeps &
  OutcomeRoutesDeps &
  WebhookRoutesDeps &
  ClockRoutesDeps &
  ResetRoutesDeps &
  SandboxRoutesDeps;

export interface AdminSandboxDeps {
  /**
   * What a call scoped to the sandbox `name` acts on, or without one (undefined) every sandbox's
   * view; the same object for the same sandbox. A `read` (GET, HEAD) never claims the name.
   */
  scopeOf(name: string | undefined, read: boolean): Promise<AdminScopeDeps>;
}

/** Each path of the contract in express syntax (`{id}` -> `:id`) with the methods it allows. */
function documentedMethods(contract: OpenAPIV3_1.Document): [string, string[]][] {
  return Object.entries(contract.paths ?? {}).map(([openApiPath, item]) => [
    openApiPath.replace(/\{(\w+)\}/g, ":$1"),
    HTTP_METHODS.filter((method) => item?.[method] !== undefined).map((method) => method.toUpperCase()),
  ]);
}

export function createAdminRoutes(deps: AdminRoutesDeps): express.Router {
  const router = express.Router();

  router.use("/_mock", requireAdminToken(deps.config.adminToken), ...readAdminBodies("100kb"));
  // The inspection API responds to its errors in shape a, whatever the send API's shape is.
  const respondWithError = createErrorHandler({ shape: () => "a", statusCodes: {}, quoteBody: true, translate: deps.translate });
  router.use(checkDocumentedCalls(contractOperations(deps.contract), respondWithError));

  // The resources a sandbox scopes, built once per scope they act on (a sandbox's, or every sandbox's).
  const scopedRouters = new WeakMap<AdminScopeDeps, express.Router>();
  const scopedRoutes = (scope: AdminScopeDeps): express.Router => {
    let routes = scopedRouters.get(scope);
    if (routes === undefined) {
      const scoped = { ...deps, ...scope };
      routes = express
        .Router()
        .use(
          createMessageRoutes(scoped),
          createRequestRoutes(scoped),
          createEventRoutes(scoped),
          createFaultRoutes(scoped),
          createOutcomeRoutes(scoped),
          createWebhookRoutes(scoped),
          createClockRoutes(scoped),
          createResetRoutes(scoped),
        );
      scopedRouters.set(scope, routes);
    }
    return routes;
  };

  router.use(createDocumentRoutes(deps), createHealthRoutes(), createTemplateRoutes(deps), createConfigRoutes(deps), createSandboxRoutes(deps));
  router.use((req: Request, res: Response, next: NextFunction) => {
    if (!req.path.startsWith("/_mock/")) {
      next();
      return;
    }
    Promise.resolve()
      .then(() => deps.scopeOf(sandboxOfCall(req), req.method === "GET" || req.method === "HEAD"))
      .then((scope) => {
        scopedRoutes(scope)(req, res, next);
      }, next);
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

  router.use("/_mock", respondWithError);

  return router;
}
