// createApp(): the middleware order and the mounting of routes, nothing else; /send goes to its own core first.

import cors from "cors";
import express, { type NextFunction, type Request, type Response } from "express";
import { ApiError, type ErrorCode } from "./errors.js";
import { createErrorHandler } from "./http/error-handler.js";
import { createAdminRoutes, type AdminRoutesDeps } from "./http/admin/index.js";
import { createInboxPage } from "./http/inbox-page.js";
import { logInspectionCalls } from "./http/inspection-log.js";
import { refuseCrossSiteWrites, refuseForeignHosts } from "./http/request-guards.js";
import type { SendRoute } from "./http/send-route.js";
import type { InspectionCall } from "./domain/request-log.js";
import type { SettingsStore } from "./domain/settings.js";

export interface AppDeps {
  /** POST /send (any method on /send): the same core the server hands such requests to straight from node:http. */
  send: SendRoute;
  admin: AdminRoutesDeps;
  corsOrigins: string[];
  /** Set when bound to loopback: see http/request-guards.ts. */
  hostGuard: { boundToLoopback: boolean; allowedHosts: string[] };
  settings: SettingsStore;
  statusCodes: Partial<Record<ErrorCode, number>>;
  /** Whatever a route threw -> the ApiError to respond with, a bug logged on the way. */
  translate: (error: unknown, body: unknown) => ApiError;
  /** A verbose request log's line for each /_mock call; absent, the calls are not timed at all. */
  logInspectionCall?: (call: InspectionCall) => void;
}

export function createApp(deps: AppDeps): express.Express {
  const app = express();
  // First, so that supertest on this app reaches the one core the server runs for /send.
  app.use((req: Request, res: Response, next: NextFunction) => {
    if (deps.send.owns(req)) deps.send.handle(req, res);
    else next();
  });
  app.disable("x-powered-by");
  // Responses change with every capture and are read once; hashing each 100 KB list for an ETag
  // cost a fifth of the inspection API's time in the bench, and a 304 would hide a poll's response.
  app.disable("etag");
  app.set("query parser", "simple");
  // On every response, being cheap: a browser must not run a JSON error or a captured email as a
  // script because it looks like one, and a link followed from a previewed email must not tell
  // its site the mock's address and message ids.
  app.use((_req: Request, res: Response, next: NextFunction) => {
    res.set({ "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer" });
    next();
  });
  // Before the guards, so a call they refuse is logged too.
  if (deps.logInspectionCall) app.use("/_mock", logInspectionCalls(deps.logInspectionCall));
  app.use(refuseForeignHosts(deps.hostGuard));
  if (deps.corsOrigins.length > 0) app.use(cors({ origin: deps.corsOrigins }));
  app.use("/_mock", refuseCrossSiteWrites({ corsOrigins: deps.corsOrigins }));

  app.use(createInboxPage());
  app.use(createAdminRoutes(deps.admin));

  app.use((req: Request, _res: Response, next: NextFunction) => {
    next(new ApiError("not_found", `No route ${req.method} ${req.path}: the send API is POST /send, the inspection API is under /_mock`));
  });
  app.use(
    createErrorHandler({ shape: () => deps.settings.current().responseShape, statusCodes: deps.statusCodes, quoteBody: false, translate: deps.translate }),
  );
  return app;
}
