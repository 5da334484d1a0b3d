// docs/configuration.md's table of settings says what the declaration of the config keys says: each key's row, in its order.

import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { DeclaredSetting } from "../../src/config/declaration.js";
import { DECLARED_SETTINGS } from "../../src/config/schema.js";

const ROOT = path.resolve(import.meta.dirname, "../..");
const TABLE_HEADER = "| flag | key | default | meaning |";

/** A default as the table writes it: text in quotes, lists and mappings as YAML's flow style, no value as "absent". */
function shownDefault(value: unknown): string {
  if (value === undefined || value === null) return "absent";
  const inline = (inner: unknown): string => {
    if (Array.isArray(inner)) return `[${inner.map(inline).join(", ")}]`;
    if (typeof inner === "object" && inner !== null)
      return `{${Object.entries(inner)
        .map(([key, item]) => `${key}: ${inline(item)}`)
        .join(", ")}}`;
    return String(inner);
  };
  return typeof value === "string" ? `\`"${value}"\`` : `\`${inline(value)}\``;
}

/** The row the declaration of `key` makes: its flag (and variable), the key, the default, what it means. */
function declaredRow(key: string, declaration: DeclaredSetting): string[] {
  const { flag, docs } = declaration;
  const flagCell = flag === undefined ? "" : `\`${flag.name.split(" ")[0] ?? ""}\`${flag.env === undefined ? "" : ` (env \`${flag.env}\`)`}`;
  return [flagCell, `\`${key}\``, docs.default ?? shownDefault(declaration.default), docs.meaning];
}

/** The table's rows that name a key (the command line's own flags have none), as their cells. */
function documentedRows(): string[][] {
  const text = readFileSync(path.join(ROOT, "docs/configuration.md"), "utf8");
  const start = text.indexOf(TABLE_HEADER);
  expect(start, "docs/configuration.md has the table of settings").toBeGreaterThan(-1);
  const rows = text.slice(start).split("\n").slice(2);
  const table = rows.slice(
    0,
    rows.findIndex((line) => !line.startsWith("|")),
  );
  const cellsOf = (line: string): string[] =>
    line
      .split(/(?<!\\)\|/)
      .slice(1, -1)
      .map((cell) => cell.trim());
  return table.map(cellsOf).filter(([, key]) => key !== undefined && key !== "");
}

describe("docs/configuration.md, its table of settings", () => {
  it("has one row per declared key, in the declaration's order, with its flag, variable, default and meaning", () => {
    const declared = DECLARED_SETTINGS.map(([key, declaration]) => declaredRow(key, declaration));
    expect(documentedRows()).toEqual(declared);
  });
});
