// The inbox page: static files served at /_mock/ under a strict Content-Security-Policy.

import express, { type NextFunction, type Request, type Response } from "express";
import { packagePath } from "../package-root.js";

// src/ui holds plain static files with no build step, so dist/ reads them from there too.
const UI_FOLDER = packagePath("src", "ui");

/** Scripts only from the page's own files; styles may be inline for the email previews; no network. */
const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

/** X-Content-Type-Options and Referrer-Policy come with every response, from app.ts. */
function pageHeaders(_req: Request, res: Response, next: NextFunction): void {
  res.set("Content-Security-Policy", PAGE_CSP);
  next();
}

export function createInboxPage(): express.Router {
  const router = express.Router({ strict: true });
  router.get("/", (_req, res) => {
    res.redirect(302, "/_mock/");
  });
  // The page loads its files relatively, so it must be addressed with the slash.
  router.get("/_mock", (_req, res) => {
    res.redirect(301, "/_mock/");
  });
  router.get("/_mock/", pageHeaders, (_req, res) => {
    res.sendFile("index.html", { root: UI_FOLDER });
  });
  router.use("/_mock/ui", pageHeaders, express.static(UI_FOLDER, { index: false, redirect: false }));
  return router;
}
