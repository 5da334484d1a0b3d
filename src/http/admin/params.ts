// What the /_mock routes (and the library's calls of the same operations) read from a query and a path, typed once for every resource.

import type { Request } from "express";

/** A query as the contract's check left it, or as the library's call gave it. */
export type Query = Readonly<Record<string, unknown>>;

export function queryString(query: Query, name: string): string | undefined {
  const value = query[name];
  return typeof value === "string" ? value : undefined;
}

/** A number as the contract's checks typed it, or as the query gave it when they did not. */
export function queryNumber(query: Query, name: string): number | undefined {
  const value = query[name];
  if (typeof value === "number") return value;
  return typeof value === "string" && value !== "" ? Number(value) : undefined;
}

/** A boolean as the contract's checks typed it, or as the query gave it (`true`) when they did not. */
export function queryFlag(query: Query, name: string): boolean {
  const value = query[name];
  return value === true || value === "true";
}

export function routeParam(req: Request, name: string): string {
  const value = req.params[name];
  return typeof value === "string" ? value : "";
}
