// A config file read: a regular file of at most 10 MB, JSON or YAML by its extension, checked, its relative paths made absolute.

import path from "node:path";
import { yaml, yamlProblem } from "../domain/yaml.js";
import { FileReadError, readBounded } from "../read-bounded.js";
import { checkConfig, ConfigError, NAMING, type FileSettings } from "./check.js";

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

/**
 * The most a config file may hold: settings, not data (the largest useful one, a thousand respond
 * rules, is well under it). `--config /dev/zero` used to read 6.2 GB in 15 s, and a 300 MB file was
 * read and parsed whole before anything was said.
 */
export const MAX_CONFIG_FILE_BYTES = 10 * 1024 * 1024;

/** The text of a config file, or a ConfigError saying why it cannot be read. */
function readSource(file: string): string {
  try {
    return readBounded(file, `config file ${file}`, MAX_CONFIG_FILE_BYTES, `the ${MAX_CONFIG_FILE_BYTES} (10 MB) a config file may hold`);
  } catch (error) {
    throw error instanceof FileReadError ? new ConfigError(error.message, { cause: error }) : error;
  }
}

export function readConfigFile(file: string): FileSettings {
  const source = readSource(file);
  let parsed: unknown;
  try {
    parsed = file.endsWith(".json") ? JSON.parse(source) : yaml().parse(source);
  } catch (error) {
    throw new ConfigError(`config file ${file}${error instanceof yaml().YAMLParseError ? yamlProblem(error) : jsonProblem(error as Error, source)}`, {
      cause: error,
    });
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
