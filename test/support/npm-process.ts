// `sendmock serve` started through npm (`npm start`, `npx sendmock serve`, `npm exec`) as a test's global setup would: spawned plainly, signalled on npm's pid alone.

import { spawn, type ChildProcessByStdio } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import type { Readable } from "node:stream";

/** The environment less what npm set for the script running vitest: it would point the child's npm at this repo and its script. */
export function npmChildEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !/^(npm_package_|npm_lifecycle_|npm_config_local_prefix$|npm_command$|init_cwd$)/i.test(key)),
  );
}

/** pid -> [parent pid, state] of every process, from /proc (Linux). */
function processTable(): Map<number, { ppid: number; state: string }> {
  const table = new Map<number, { ppid: number; state: string }>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue; // gone meanwhile
    }
    // "pid (comm) state ppid …": comm may hold spaces and parentheses, so read after the last ")".
    const [state = "", ppid = ""] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    table.set(Number(entry), { ppid: Number(ppid), state });
  }
  return table;
}

/** The processes started under `pid`: its children, theirs, and so on. */
export function descendantsOf(pid: number): number[] {
  const table = processTable();
  const found: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    const parent = queue.shift();
    for (const [child, { ppid }] of table) {
      if (ppid === parent) {
        found.push(child);
        queue.push(child);
      }
    }
  }
  return found;
}

/** The parent of `pid`, or undefined once it is gone. */
export function parentOf(pid: number): number | undefined {
  return processTable().get(pid)?.ppid;
}

/** Those of `pids` still running; a zombie (exited, waiting for a parent to reap it) is not. */
export function stillRunning(pids: readonly number[]): number[] {
  const table = processTable();
  return pids.filter((pid) => {
    const state = table.get(pid)?.state;
    return state !== undefined && state !== "Z" && state !== "X";
  });
}

export interface NpmServer {
  child: ChildProcessByStdio<null, Readable, Readable>;
  url: string;
  /** stdout and stderr so far, npm's and the server's, interleaved. */
  output(): string;
  /** Resolves when npm has exited and every holder of its stdout and stderr closed them: the server too. */
  closed: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Spawns `command args` plainly (no process group of its own), and resolves once the server printed its URL. */
export async function startThroughNpm(command: string, args: string[], cwd: string): Promise<NpmServer> {
  const child = spawn(command, args, { cwd, env: npmChildEnv(), stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once("close", (code, signal) => {
      resolve({ code, signal });
    });
  });
  const url = await new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      const found = /listening on (http:\/\/\S+)/.exec(output)?.[1];
      if (found !== undefined) resolve(found);
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    void closed.then(() => {
      reject(new Error(`${command} ${args.join(" ")} ended before printing a URL:\n${output}`));
    });
  });
  return { child, url, output: () => output, closed };
}

/** Whether anything still responds on the server's port: "refused" once it is closed. */
export function health(url: string): Promise<"answered" | "refused"> {
  return fetch(`${url}/_mock/health`).then(
    () => "answered",
    () => "refused",
  );
}
