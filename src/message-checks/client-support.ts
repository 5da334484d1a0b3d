// How well each client family supports a caniemail feature, from the database's test results, and how severe a use of it is.

import type { CaniemailFeature, SupportResult } from "./caniemail-data.js";

/** The families whose users are most mail: a feature none of their platforms supports fails the check. */
export const MAJOR_FAMILIES: readonly string[] = ["gmail", "outlook", "apple-mail", "yahoo"];

/** A result's worth: supported 1, partly (`a`) one half, not 0; unknown (`u`) is not counted. */
function worth(result: SupportResult): number | undefined {
  switch (result.trimStart().charAt(0)) {
    case "y":
      return 1;
    case "a":
      return 0.5;
    case "n":
      return 0;
    default:
      return undefined;
  }
}

/**
 * Per family, the % of its platforms (Gmail's desktop webmail, iOS, Android, …) that support the
 * feature, each platform by the last result the database lists for it (its latest version
 * tested), a partial result counting half; a family whose every result is unknown is left out.
 */
export function supportByFamily(feature: CaniemailFeature): Record<string, number> {
  const support: Record<string, number> = {};
  for (const [family, platforms] of Object.entries(feature.stats)) {
    let sum = 0;
    let counted = 0;
    for (const versions of Object.values(platforms)) {
      const results = Object.values(versions);
      const latest = worth(results[results.length - 1] ?? "u");
      if (latest === undefined) continue;
      sum += latest;
      counted += 1;
    }
    if (counted > 0) support[family] = Math.round((100 * sum) / counted);
  }
  return support;
}

/**
 * The rule: `fail` when a major family (Gmail, Outlook, Apple Mail, Yahoo) supports the feature on
 * none of its platforms, `warn` when any family supports it less than fully, else nothing to say.
 */
export function severityOf(support: Readonly<Record<string, number>>): "fail" | "warn" | undefined {
  if (MAJOR_FAMILIES.some((family) => support[family] === 0)) return "fail";
  return Object.values(support).some((percent) => percent < 100) ? "warn" : undefined;
}
