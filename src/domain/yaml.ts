// The YAML parser, loaded on first use rather than at start.

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
