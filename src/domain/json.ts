// JSON from outside (a request, a response) that may not parse.

export type ParsedJson = { ok: true; value: unknown } | { ok: false };

/** The value of `text` (UTF-8 when bytes), or `ok: false` when it is not JSON. */
export function parseJson(text: string | Buffer): ParsedJson {
  try {
    return { ok: true, value: JSON.parse(typeof text === "string" ? text : text.toString("utf8")) as unknown };
  } catch {
    return { ok: false };
  }
}

/** The value `pointer` (a JSON pointer, `~1` and `~0` escaped) names in `root`, or undefined. */
export function valueAt(root: unknown, pointer: string): unknown {
  return pointer
    .split("/")
    .slice(1)
    .reduce<unknown>(
      (value, key) =>
        value !== null && typeof value === "object" ? (value as Record<string, unknown>)[key.replaceAll("~1", "/").replaceAll("~0", "~")] : undefined,
      root,
    );
}
