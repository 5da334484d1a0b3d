// The types of sandbox-steps.cjs, for the vitest files that import it.
import type { SandboxClient } from "sendmock/testing";

export interface SandboxContents {
  messages: number;
  requests: number;
  faultRules: number;
  clockOffsetMs: number;
}

export function contentsOf(sandbox: SandboxClient): Promise<SandboxContents>;
export function leaveThingsBehind(sandbox: SandboxClient): Promise<SandboxContents>;
