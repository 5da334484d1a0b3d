// A real SpamAssassin spamd for the `spam` check's tests: Debian's, started on a free loopback port with local tests only (no
// DNS: nothing leaves the machine). Outside CI a missing spamd skips its tests and says why; in CI (.ci/run installs it) it fails them.

import { spawn, spawnSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";

const SPAMD = process.env.SENDMOCK_TEST_SPAMD ?? "/usr/sbin/spamd";

/** Why the spamd tests cannot run here, or undefined when they can. */
export function spamdMissing(): string | undefined {
  if (spawnSync(SPAMD, ["--version"], { stdio: "ignore" }).status === 0) return undefined;
  const reason = `no SpamAssassin spamd at ${SPAMD} (apt-get install spamd spamassassin, or set SENDMOCK_TEST_SPAMD)`;
  if (process.env.CI === "true") throw new Error(`the spam check's tests must run in CI, but ${reason}`);
  console.warn(`skipping the spam check's tests: ${reason}`);
  return reason;
}

async function freePort(): Promise<number> {
  const server = net.createServer().listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface SpamdProcess {
  /** `127.0.0.1:PORT`, as the `spamd` setting takes it. */
  readonly address: string;
  stop(): Promise<void>;
}

/** Starts spamd and resolves once it says it listens (it loads its rules first: ~1 s here). */
export async function startSpamd(): Promise<SpamdProcess> {
  const port = await freePort();
  const home = await mkdtemp(path.join(os.tmpdir(), "sendmock-spamd-"));
  const child = spawn(
    SPAMD,
    [
      "--local",
      `--listen=127.0.0.1:${String(port)}`,
      // The page asks for every row's checks at once: three children score three messages side by side.
      "--max-children=3",
      "--min-children=3",
      `--pidfile=${path.join(home, "spamd.pid")}`,
      "--syslog=stderr",
      // Run as root (CI's container), spamd drops to this user; as anyone else it stays who it is.
      ...(process.getuid?.() === 0 ? ["--username=nobody"] : []),
      "--nouser-config",
    ],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  let said = "";
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`spamd did not start within 60 s:\n${said}`));
    }, 60_000);
    child.stderr.on("data", (chunk: Buffer) => {
      said += chunk.toString("utf8");
      if (said.includes("server started")) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`spamd exited (${String(code)}) before it started:\n${said}`));
    });
  });
  child.stderr.resume();
  return {
    address: `127.0.0.1:${String(port)}`,
    async stop() {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
      await rm(home, { recursive: true, force: true });
    },
  };
}
