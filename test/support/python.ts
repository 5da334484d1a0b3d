// Debian's Python, which the Python client's tests and the docs' Python blocks run with (another python3 may come first
// on the PATH): whether it is here with pytest, and the client's sources for it to import.

import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { ROOT } from "./cli-process.js";

export const PYTHON = "/usr/bin/python3";
/** The client's package, importable without installing it. */
export const PYTHON_CLIENT_SOURCES = path.join(ROOT, "clients", "python", "src");

/** Why Python blocks cannot run here, or undefined when they can; in CI a missing Python fails instead. */
export function pythonMissing(): string | undefined {
  let reason: string | undefined;
  if (!existsSync(PYTHON)) reason = `no ${PYTHON} (apt-get install python3)`;
  else if (spawnSync(PYTHON, ["-c", "import pytest"], { stdio: "ignore" }).status !== 0) reason = `${PYTHON} has no pytest (apt-get install python3-pytest)`;
  if (reason === undefined) return undefined;
  if (process.env.CI === "true") throw new Error(`the Python blocks must run in CI, but ${reason}`);
  console.warn(`skipping the Python blocks: ${reason}`);
  return reason;
}
