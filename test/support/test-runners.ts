// Runs vitest or jest (or a script driving them) in a child process on a user's test files, as a user would from the shell.

import { execFile } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));

export interface RunResult {
  code: number;
  /** stdout then stderr, without colours. */
  output: string;
}

/** `node ARGS` in the repository; the child resolves "sendmock/…" through the package's own `exports`, i.e. dist/, which the global setup built. */
export function runNode(args: string[], extraEnv: Record<string, string> = {}): Promise<RunResult> {
  // Without the variables of the vitest running this test, the child is a runner of its own.
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^(VITEST|TINYPOOL|JEST)/i.test(key)));
  return new Promise((resolve) => {
    execFile(process.execPath, args, { cwd: ROOT, env: { ...env, ...extraEnv, NO_COLOR: "1", FORCE_COLOR: "0" }, timeout: 60_000 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === "number" ? error.code : 1;
      resolve({ code, output: `${stdout}\n${stderr}` });
    });
  });
}

/** `vitest run --config <config>`, with `env` set beside the environment of this process. */
export function runVitest(config: string, env: Record<string, string> = {}): Promise<RunResult> {
  return runNode([path.join(ROOT, "node_modules/vitest/vitest.mjs"), "run", "--config", config], env);
}

/** jest on the files of `rootDir` matching `testMatch`, as ES modules. */
export function runJest(rootDir: string, testMatch: string): Promise<RunResult> {
  return runNode(["--experimental-vm-modules", path.join(ROOT, "node_modules/jest/bin/jest.js"), "--rootDir", rootDir, "--testMatch", testMatch]);
}
