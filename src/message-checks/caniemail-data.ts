// The caniemail database as the npm package `caniemail` publishes it: read once, when a check first needs it; and the build's copy of it.

import { copyFileSync, existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { packagePath } from "../package-root.js";

const require = createRequire(import.meta.url);

/** What a platform's test said: `y`, `n`, `a` (partly) or `u` (unknown), then note numbers such as `#1`. */
export type SupportResult = string;

/** One feature of the database: an HTML element or attribute, a CSS property, value, selector or at-rule, an image format. */
export interface CaniemailFeature {
  slug: string;
  title: string;
  category: string;
  keywords: string | null;
  /** family -> platform -> version tested -> result, oldest version first. */
  stats: Record<string, Record<string, Record<string, SupportResult>>>;
}

export interface CaniemailData {
  api_version: string;
  last_update_date: string;
  nicenames: { family: Record<string, string> };
  data: CaniemailFeature[];
}

/**
 * The build's copy (`npm run build` writes it, the package ships it and the single executable
 * carries it): the package itself is a devDependency, so that installing sendmock does not install
 * what `caniemail` depends on for its own checker (a Babel-based prettier plugin among them).
 */
export const CANIEMAIL_COPY = "caniemail.json";

/** The package's own file, for the build to copy and for a run from src/ before any build. */
const packageFile = (): string => require.resolve("caniemail/caniemail.json");

/**
 * The database, parsed. It is 626 KB: reading and parsing it took ~10 ms on this 2-core machine,
 * so it is read when a check first asks for it (see html-support.ts), never when sendmock starts.
 */
export function readCaniemail(): CaniemailData {
  const copy = packagePath("dist", CANIEMAIL_COPY);
  return JSON.parse(readFileSync(existsSync(copy) ? copy : packageFile(), "utf8")) as CaniemailData;
}

/** The build's step: the package's file copied as published into dist/. */
export function copyCaniemail(): void {
  copyFileSync(packageFile(), packagePath("dist", CANIEMAIL_COPY));
}
