// Config files written for a test, and the ConfigError message a bad setting stops the start with.

import { mkdtemp, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { expect } from "vitest";
import { ConfigError } from "../../src/config/check.js";

/** `contents` as a file `name` in a fresh temporary folder; returns its path. */
export async function aConfigFile(name: string, contents: string): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "sendmock-config-"));
  const file = path.join(dir, name);
  await writeFile(file, contents);
  return file;
}

/** The message of the ConfigError `run` throws; fails the test when it throws none, or another error. */
export function configErrorOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error("expected a ConfigError");
}
