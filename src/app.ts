// createApp(): the middleware order and the mounting of routes, nothing else.

import cors from "cors";
import express, { type NextFunction, type Request, type Response } from "express";
import { ApiError, type ErrorCode } from "./errors.js";
import { createErrorHandler } from "./http/error-handler.js";
import { createAdminRoutes, type AdminRoutesDeps } from "./http/admin-routes.js";
import { createInboxPage } from "./http/inbox-page.js";
import { logInspectionCalls } from "./http/inspection-log.js";
import { refuseCrossSiteWrites, refuseForeignHosts } from "./http/request-guards.js";
import { createProxyRoutes, type ProxyRoutesDeps } from "./http/proxy-routes.js";
import { createSendRoutes, type SendRoutesDeps } from "./http/send-routes.js";
import type { InspectionCall } from "./domain/request-log.js";
import type { SettingsStore } from "./domain/settings.js";

export interface AppDeps {
  send: SendRoutesDeps;
  admin: AdminRoutesDeps;
  /** Proxy mode: POST /send is relayed to the real service instead of the local pipeline. */
  proxy: ProxyRoutesDeps | null;
  corsOrigins: string[];
  /** Set when bound to loopback: see http/request-guards.ts. */
  hostGuard: { boundToLoopback: boolean; allowedHosts: string[] };
  settings: SettingsStore;
  statusCodes: Partial<Record<ErrorCode, number>>;
  /** A verbose request log's line for each /_mock call; absent, the calls are not timed at all. */
  logInspectionCall?: (call: InspectionCall) => void;
}

export function createApp(deps: AppDeps): express.Express {
  const app = express();
  app.disable("x-powered-by");
  // Answers change with every capture and are read once; hashing each 100 KB list for an ETag
  // cost a fifth of the inspection API's time in the bench, and a 304 would hide a poll's answer.
  app.disable("etag");
  app.set("query parser", "simple");
  // On every answer, being cheap: a browser must not run a JSON error or a captured email as a
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

  app.use(deps.proxy ? createProxyRoutes(deps.proxy) : createSendRoutes(deps.send));
  app.use(createInboxPage());
  app.use(createAdminRoutes(deps.admin));

  app.use((req: Request, _res: Response, next: NextFunction) => {
    next(new ApiError("not_found", `No route ${req.method} ${req.path}: the send API is POST /send, the inspection API is under /_mock`));
  });
  app.use(createErrorHandler({ shape: () => deps.settings.current().responseShape, statusCodes: deps.statusCodes, quoteBody: false }));
  return app;
}
