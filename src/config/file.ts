// A config file read: a regular file of at most 10 MB, JSON or YAML by its extension, checked, its relative paths made absolute.

import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from "node:fs";
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

/**
 * The most a config file may hold: settings, not data (the largest useful one, a thousand respond
 * rules, is well under it). `--config /dev/zero` used to read 6.2 GB in 15 s, and a 300 MB file was
 * read and parsed whole before anything was said.
 */
export const MAX_CONFIG_FILE_BYTES = 10 * 1024 * 1024;

/** What a path that is not a regular file is, in words. */
function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return "a folder";
  if (stats.isFIFO()) return "a FIFO";
  if (stats.isCharacterDevice()) return "a character device";
  if (stats.isBlockDevice()) return "a block device";
  if (stats.isSocket()) return "a socket";
  return "not a file";
}

/**
 * The file's text: a regular file of at most MAX_CONFIG_FILE_BYTES, else a ConfigError. Opened
 * without blocking (a FIFO nobody writes to would hold the start for ever), looked at before it is
 * read, and read no further than the bound, however the file grows meanwhile.
 */
function readBounded(file: string): string {
  let fd: number;
  try {
    // O_NONBLOCK is absent on Windows, where it ORs as 0: no FIFO blocks an open there.
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (error as Error).message;
    throw new ConfigError(`config file ${file}: ${reason}`);
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw new ConfigError(`config file ${file}: is ${kindOf(stats)}, not a regular file`);
    const limit = `the ${MAX_CONFIG_FILE_BYTES} (10 MB) a config file may hold`;
    if (stats.size > MAX_CONFIG_FILE_BYTES) throw new ConfigError(`config file ${file}: is ${stats.size} bytes, more than ${limit}`);
    // Read to its end, not to the size it had: a file of /proc says 0, and a file may grow meanwhile.
    const chunks: Buffer[] = [];
    const chunk = Buffer.alloc(64 * 1024);
    let total = 0;
    for (let read = readSync(fd, chunk); read > 0; read = readSync(fd, chunk)) {
      total += read;
      if (total > MAX_CONFIG_FILE_BYTES) throw new ConfigError(`config file ${file}: grew past ${limit} while it was read`);
      chunks.push(Buffer.from(chunk.subarray(0, read)));
    }
    return Buffer.concat(chunks).toString("utf8");
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError(`config file ${file}: ${(error as Error).message}`);
  } finally {
    closeSync(fd);
  }
}

export function readConfigFile(file: string): FileSettings {
  const source = readBounded(file);
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
