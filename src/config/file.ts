// A config file read: JSON or YAML by its extension, checked, its relative paths made absolute.

import { readFileSync } from "node:fs";
import path from "node:path";
import type { YAMLParseError } from "yaml";
import { yaml } from "../domain/yaml.js";
import { checkConfig, ConfigError, NAMING, type FileSettings } from "./check.js";

/**
 * `, line 3, column 1: <what is wrong>`. The yaml library ends its message in a code frame over
 * several lines, where a start error is one line; the frame is not kept, as the line at fault
 * may hold an API key or the admin token, which no message shows whole.
 */
function yamlProblem(error: YAMLParseError): string {
  // The parser recurses once per level of nesting: what runs it out of stack nests too deep.
  const reason = error.message.replace(/ at line \d+, column \d+:[\s\S]*$/, "").replace(/^Maximum call stack size exceeded$/, "nests too deep to read");
  const position = error.linePos?.[0];
  return position === undefined ? `: ${reason}` : `, line ${position.line}, column ${position.col}: ${reason}`;
}

/**
 * `, line 2, column 15: Expected ',' or '}' after property value`: JSON.parse counts characters
 * from the start, and newer Nodes quote the text around the problem, which may hold a key.
 */
function jsonProblem(error: Error, source: string): string {
  const reason = error.message.replace(/, ".*" is not valid JSON$/s, "").replace(/ in JSON at position \d+.*$/s, "");
  const position = /at position (\d+)/.exec(error.message)?.[1];
  if (position === undefined) return `: ${reason}`;
  const before = source.slice(0, Number(position)).split("\n");
  return `, line ${before.length}, column ${(before.at(-1)?.length ?? 0) + 1}: ${reason}`;
}

export function readConfigFile(file: string): FileSettings {
  let source: string;
  try {
    source = readFileSync(file, "utf8");
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (error as Error).message;
    throw new ConfigError(`config file ${file}: ${reason}`);
  }
  let parsed: unknown;
  try {
    parsed = file.endsWith(".json") ? JSON.parse(source) : yaml().parse(source);
  } catch (error) {
    throw new ConfigError(`config file ${file}${error instanceof yaml().YAMLParseError ? yamlProblem(error) : jsonProblem(error as Error, source)}`);
  }
  if (parsed === null || parsed === undefined) return {};
  if (typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new ConfigError(`config file ${file}: must be a mapping of settings, not ${Array.isArray(parsed) ? "a list" : typeof parsed}`);
  }
  const settings = parsed as FileSettings;
  checkConfig(settings, `config file ${file}`, NAMING.file);
  if (typeof settings.templates === "string") {
    settings.templates = path.resolve(path.dirname(file), settings.templates);
  }
  return settings;
}
