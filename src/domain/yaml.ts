// The YAML parser, loaded on first use rather than at start, and its errors told in one line.

import { createRequire } from "node:module";
import type * as Yaml from "yaml";

const require = createRequire(import.meta.url);

/**
 * The `yaml` package. Loading it took ~20 ms of the ~330 ms from spawning `sendmock serve` to
 * its first response (profiled with --cpu-prof), and a start that parses no YAML needs none of
 * it: the build parses the shipped templates ahead, and the contracts are read as JSON.
 */
export function yaml(): typeof Yaml {
  return require("yaml") as typeof Yaml;
}

/**
 * `, line 3, column 1: <what is wrong>`. The yaml library ends its message in a code frame over
 * several lines, where a start error is one line; the frame is not kept, as the line at fault
 * may hold an API key or the admin token, which no message shows whole.
 */
export function yamlProblem(error: Yaml.YAMLParseError): string {
  // The parser recurses once per level of nesting: what runs it out of stack nests too deep.
  const reason = error.message.replace(/ at line \d+, column \d+:[\s\S]*$/, "").replace(/^Maximum call stack size exceeded$/, "nests too deep to read");
  const position = error.linePos?.[0];
  return position === undefined ? `: ${reason}` : `, line ${position.line}, column ${position.col}: ${reason}`;
}
