// What the /_mock routes read from a request's query and path, typed once for every resource.

import type { Request } from "express";

export function queryString(req: Request, name: string): string | undefined {
  const value = req.query[name];
  return typeof value === "string" ? value : undefined;
}

/** A number as the contract's checks typed it, or as the query gave it when they did not. */
export function queryNumber(req: Request, name: string): number | undefined {
  const value = req.query[name];
  if (typeof value === "number") return value;
  return typeof value === "string" && value !== "" ? Number(value) : undefined;
}

export function routeParam(req: Request, name: string): string {
  const value = req.params[name];
  return typeof value === "string" ? value : "";
}
