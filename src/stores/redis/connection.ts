// One Redis server shared by several replicas: a command connection, a subscriber connection
// (Redis reserves a subscribed connection for messages), and the key prefix of this environment.

import { createHash } from "node:crypto";
import { Redis } from "ioredis";
import { StoreUnavailableError } from "../../domain/store-errors.js";

export interface RedisStoreOptions {
  url: string;
  /** Prepended to every key and channel, so two environments can share one Redis. */
  keyPrefix: string;
  /** How long the first connection may take before the start fails (default 3000 ms). */
  connectTimeoutMs?: number;
  /** A command that has not completed by then fails (redis_timeout_ms): a stalled Redis must not hold requests. */
  commandTimeoutMs: number;
}

/** A Lua script and the SHA1 digest Redis caches it under. */
export interface LuaScript {
  readonly source: string;
  readonly sha1: string;
}

export function luaScript(source: string): LuaScript {
  return { source, sha1: createHash("sha1").update(source).digest("hex") };
}

export interface RedisConnection {
  readonly commands: Redis;
  readonly subscriber: Redis;
  /** The prefixed name of a key or channel. */
  key(name: string): string;
  /** Runs one store operation; any Redis failure becomes a StoreUnavailableError naming the store. */
  run<T>(operation: (commands: Redis) => Promise<T>): Promise<T>;
  /** Runs a script as one store operation (see `runScript`). */
  script(script: LuaScript, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown>;
  close(): Promise<void>;
}

/**
 * Runs a script by its digest, sending its text only when Redis does not know it (after a
 * restart or SCRIPT FLUSH). EVAL sent the whole text with every call (the capture script's was
 * ~3 KB, once per send), and Redis hashed it each time.
 */
function runScript(redis: Redis, script: LuaScript, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> {
  return redis.evalsha(script.sha1, keys.length, ...keys, ...args).catch((error: unknown) => {
    if (!(error instanceof Error) || !error.message.startsWith("NOSCRIPT")) throw error;
    return redis.eval(script.source, keys.length, ...keys, ...args);
  });
}

/** The URL without its password, for messages and logs. */
function describeRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== "") parsed.password = "***";
    return `redis store at ${parsed.toString().replace(/\/$/, "")}`;
  } catch {
    return "redis store (unparseable URL)";
  }
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Connects both connections or fails with one StoreUnavailableError. Once up, a lost server
 * makes commands fail at once (no offline queue: a request must not hang) while the client
 * keeps reconnecting in the background, so the mock recovers when Redis returns.
 */
export async function connectRedis(options: RedisStoreOptions): Promise<RedisConnection> {
  const store = describeRedisUrl(options.url);
  let url: URL;
  try {
    url = new URL(options.url);
  } catch {
    throw new StoreUnavailableError(store, `${JSON.stringify(options.url)} is not a URL (expected redis://host:port)`);
  }
  if (url.protocol !== "redis:" && url.protocol !== "rediss:") {
    throw new StoreUnavailableError(store, `the URL must start with redis:// or rediss://, got ${url.protocol}//`);
  }
  const client = (autoPipelining: boolean): Redis =>
    new Redis(options.url, {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      connectTimeout: options.connectTimeoutMs ?? 3000,
      // A paused or overloaded server keeps its socket open: without a deadline a request waits
      // as long as the pause. Late replies still arrive in order, so the client stays in step.
      commandTimeout: options.commandTimeoutMs,
      retryStrategy: (attempt) => Math.min(attempt * 100, 1000),
      // Commands issued in one turn of the event loop (by the sends in flight together) go out in
      // one write. It cut a send's server CPU from ~255 to ~190-240 µs, but the list's reads of
      // whole messages (50 of them per page) from ~480 to ~690 µs: those go out on their own.
      enableAutoPipelining: autoPipelining,
      autoPipeliningIgnoredCommands: ["hmget", "lrange", "llen"],
    });
  const commands = client(true);
  // A subscribed connection sends next to nothing.
  const subscriber = client(false);
  let lastError = "";
  for (const connection of [commands, subscriber]) {
    // ioredis reports a lost server as an 'error' event; an unheard one would crash the process.
    connection.on("error", (error: unknown) => {
      lastError = reasonOf(error);
    });
  }
  const closeBoth = (): void => {
    commands.disconnect();
    subscriber.disconnect();
  };
  try {
    await Promise.all([firstConnect(commands, () => lastError), firstConnect(subscriber, () => lastError)]);
  } catch (error) {
    closeBoth();
    throw new StoreUnavailableError(store, reasonOf(error), { cause: error });
  }

  const unavailable = (error: unknown): StoreUnavailableError => {
    const reason = reasonOf(error) === "Command timed out" ? `no answer within redis_timeout_ms (${options.commandTimeoutMs} ms)` : reasonOf(error);
    return new StoreUnavailableError(store, lastError !== "" && commands.status !== "ready" ? lastError : reason);
  };

  // A promise chain, not an async function: one frame and promise less on each of a send's ~13 commands.
  function run<T>(operation: (redis: Redis) => Promise<T>): Promise<T> {
    let pending: Promise<T>;
    try {
      pending = operation(commands);
    } catch (error) {
      return Promise.reject(unavailable(error));
    }
    return pending.catch((error: unknown) => {
      throw unavailable(error);
    });
  }

  return {
    commands,
    subscriber,
    key: (name) => `${options.keyPrefix}${name}`,
    run,
    script: (script, keys, args) => run((redis) => runScript(redis, script, keys, args)),
    async close() {
      await Promise.allSettled([commands.quit(), subscriber.quit()]);
      closeBoth();
    },
  };
}

/** The first connect fails on the first refusal instead of retrying forever. */
async function firstConnect(connection: Redis, lastError: () => string): Promise<void> {
  try {
    await connection.connect();
    await connection.ping();
  } catch (error) {
    const reason = lastError();
    throw new Error(reason !== "" ? reason : reasonOf(error), { cause: error });
  }
}
