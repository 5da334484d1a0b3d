// The peak resident memory of a child process, for the tests that hold sendmock to a memory bound: read by the child itself as it exits, or from /proc while it runs.

import { readFile } from "node:fs/promises";
import { readFileSync } from "node:fs";

/**
 * Node arguments (before the script) that make the child write its peak RSS in KB to `file` as it
 * exits, `process.exit` included: exact, where sampling /proc from outside misses the last moments.
 */
export function peakRssArgs(file: string): string[] {
  const hook = `import{writeFileSync}from"node:fs";process.on("exit",()=>writeFileSync(${JSON.stringify(file)},String(process.resourceUsage().maxRSS)));`;
  return ["--import", `data:text/javascript,${encodeURIComponent(hook)}`];
}

/** What `peakRssArgs` had the child write, in MB. */
export async function writtenPeakMb(file: string): Promise<number> {
  return Number(await readFile(file, "utf8")) / 1024;
}

/** The peak resident memory so far of a running process (VmHWM of /proc/<pid>/status), in MB. */
export function runningPeakMb(pid: number): number {
  const match = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  if (match?.[1] === undefined) throw new Error(`no VmHWM in /proc/${pid}/status`);
  return Number(match[1]) / 1024;
}
