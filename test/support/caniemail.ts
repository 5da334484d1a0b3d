// What the caniemail database itself says of a feature, computed here from the package's JSON, for the message checks' tests to judge html_support by (never numbers copied into a test).

import { createRequire } from "node:module";

interface Feature {
  slug: string;
  title: string;
  stats: Record<string, Record<string, Record<string, string>>>;
}

const database = createRequire(import.meta.url)("caniemail/caniemail.json") as { api_version: string; last_update_date: string; data: Feature[] };

export const CANIEMAIL = database;

export function caniemailFeature(slug: string): Feature {
  const feature = database.data.find((candidate) => candidate.slug === slug);
  if (feature === undefined) throw new Error(`caniemail has no feature ${slug}`);
  return feature;
}

/** Per family, the % of its platforms whose latest result is `y` (1) or `a` (½), `u` not counted: the rule docs/message-checks.md states. */
export function expectedSupport(slug: string): Record<string, number> {
  const support: Record<string, number> = {};
  for (const [family, platforms] of Object.entries(caniemailFeature(slug).stats)) {
    const scores = Object.values(platforms)
      .map((versions) => Object.values(versions).at(-1) ?? "u")
      .map((result) => ({ y: 1, a: 0.5, n: 0 })[result.trim().charAt(0)])
      .filter((score) => score !== undefined);
    if (scores.length > 0) support[family] = Math.round((100 * scores.reduce((sum, score) => sum + score, 0)) / scores.length);
  }
  return support;
}

/** fail: a major family (gmail, outlook, apple-mail, yahoo) at 0%; warn: any family under 100%; undefined: nothing to report. */
export function expectedSeverity(slug: string): "fail" | "warn" | undefined {
  const support = expectedSupport(slug);
  if (["gmail", "outlook", "apple-mail", "yahoo"].some((family) => support[family] === 0)) return "fail";
  return Object.values(support).some((percent) => percent < 100) ? "warn" : undefined;
}
