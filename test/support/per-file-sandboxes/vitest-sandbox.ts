// The sandbox each vitest file of the proof uses: setupSandbox's own, or, as the negative control (SANDBOX_OF=worker), the worker's.
import { sandboxClient, setupSandbox, type SandboxClient } from "sendmock/vitest";

/** The worker's sandbox is what the files of one worker used to share: the control that shows the leak the proof rules out. */
export function fileSandbox(): SandboxClient {
  return process.env.SANDBOX_OF === "worker" ? sandboxClient({ url: process.env.SENDMOCK_URL ?? "" }) : setupSandbox({ onContractViolation: "error" });
}
