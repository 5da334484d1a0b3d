// A real Redis for the tests of the redis store. CI (.ci/run) starts one and names it in
// SENDMOCK_TEST_REDIS_URL; elsewhere a redis-server on the PATH is started on a free port.
// Without either, the tests skip and say why; in CI a missing Redis is a failure.

import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { once } from "node:events";
import net from "node:net";
import { Redis } from "ioredis";

export interface RedisProcess {
  readonly url: string;
  readonly port: number;
  stop(): Promise<void>;
  /** Starts it again on the same port, after `stop`. */
  start(): Promise<void>;
  /** SIGSTOP: the server keeps its sockets open and sends nothing, as a stalled Redis does. */
  pause(): void;
  /** SIGCONT after `pause`. */
  resume(): void;
}

const SHARED_URL = process.env.SENDMOCK_TEST_REDIS_URL;
const IN_CI = process.env.CI === "true";

export function hasRedisServerBinary(): boolean {
  return spawnSync("redis-server", ["--version"], { stdio: "ignore" }).status === 0;
}

/** Why the redis tests cannot run here, or undefined when they can. */
export function redisUnavailableReason(options: { needsOwnServer?: boolean } = {}): string | undefined {
  const own = hasRedisServerBinary();
  if (options.needsOwnServer === true ? own : own || SHARED_URL !== undefined) return undefined;
  const reason =
    options.needsOwnServer === true
      ? "redis-server is not on the PATH (these tests stop and start their own)"
      : "no SENDMOCK_TEST_REDIS_URL and no redis-server on the PATH";
  if (IN_CI) throw new Error(`redis tests must run in CI, but ${reason}; .ci/run installs and starts redis-server`);
  console.warn(`skipping redis store tests: ${reason} (install Debian's redis-server, or set SENDMOCK_TEST_REDIS_URL)`);
  return reason;
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function waitForPing(url: string): Promise<void> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, enableOfflineQueue: false });
    client.on("error", () => undefined);
    try {
      await client.connect();
      await client.ping();
      client.disconnect();
      return;
    } catch (error) {
      client.disconnect();
      if (Date.now() > deadline) throw new Error(`redis-server at ${url} did not answer PING: ${String(error)}`, { cause: error });
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

/** A redis-server of the test's own, on a free loopback port, without persistence. */
export async function startRedisServer(): Promise<RedisProcess> {
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  let child: ChildProcess | undefined;
  const start = async (): Promise<void> => {
    child = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdio: "ignore" });
    await waitForPing(url);
  };
  await start();
  return {
    url,
    port,
    start,
    pause: () => child?.kill("SIGSTOP"),
    resume: () => child?.kill("SIGCONT"),
    async stop() {
      const running = child;
      child = undefined;
      if (!running || running.exitCode !== null) return;
      running.kill("SIGCONT");
      running.kill("SIGKILL");
      await once(running, "exit");
    },
  };
}

let shared: Promise<{ url: string; stop: () => Promise<void> }> | undefined;

/**
 * The Redis the contract and replica tests share; each test keeps to its own key prefix. Each
 * file stops it after its tests, and the files of a worker may share this module (`isolate:
 * false`): a call after a stop starts another, instead of handing out the stopped one.
 */
export function sharedRedis(): Promise<{ url: string; stop: () => Promise<void> }> {
  shared ??=
    SHARED_URL !== undefined
      ? Promise.resolve({ url: SHARED_URL, stop: () => Promise.resolve() })
      : startRedisServer().then((server) => ({
          url: server.url,
          async stop() {
            shared = undefined;
            await server.stop();
          },
        }));
  return shared;
}

/** A key prefix no other test uses, so tests never see each other's data. */
export function aKeyPrefix(): string {
  return `sendmock-test:${randomUUID()}:`;
}
