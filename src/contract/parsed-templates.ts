// The shipped templates parsed at build (dist/parsed-templates.json), by the digest of their text,
// so that a mock serving them does not load the YAML parser at start.

import { readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { isDeepStrictEqual } from "node:util";
import { SHIPPED_TEMPLATES } from "../package-root.js";
import { sha256 } from "../domain/digest.js";
import { yaml } from "../domain/yaml.js";
import { builtAhead, builtFile } from "./built-ahead.js";

const PARSED_TEMPLATES_FILE = "parsed-templates.json";

/** The document the build parsed from YAML text `source`, or undefined (not built, or other text). */
export const templateParsedAhead = (source: string): unknown => builtAhead(PARSED_TEMPLATES_FILE, sha256(source, "hex"));

/**
 * Run by the build: the shipped YAML templates that parse without error, each as its document.
 * One that JSON cannot carry as it is (`.inf`, `.nan`) is left out, and so parsed at start.
 */
export async function recordParsedTemplates(): Promise<void> {
  const parsed: Record<string, unknown> = {};
  for (const name of await readdir(SHIPPED_TEMPLATES)) {
    if (!/\.ya?ml$/.test(name)) continue;
    const source = await readFile(path.join(SHIPPED_TEMPLATES, name), "utf8");
    const document = yaml().parseDocument(source);
    if (document.errors.length > 0) continue;
    const value: unknown = document.toJS();
    if (isDeepStrictEqual(JSON.parse(JSON.stringify(value)), value)) parsed[sha256(source, "hex")] = value;
  }
  await writeFile(builtFile(PARSED_TEMPLATES_FILE), `${JSON.stringify(parsed)}\n`);
}
