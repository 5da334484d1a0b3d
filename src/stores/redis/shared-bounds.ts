// The bounds every sandbox's outbox and journal share on Redis (../shared-bounds.ts): keys of the environment's, charged and trimmed in the stores' own scripts.

import { DEFAULT_SANDBOX } from "../../domain/sandboxes.js";
import type { BoundLimits, SharedBounds } from "../shared-bounds.js";
import type { RedisConnection } from "./connection.js";

/** Where one sandbox's outbox or journal charges its items. */
export interface RedisSandboxBound {
  readonly limits: BoundLimits;
  /** The sandbox's name: the scripts name each item by it. */
  readonly sandbox: string;
  /** The environment's key prefix, from which a script finds another sandbox's keys (`LUA_KEYS_OF`). */
  readonly environment: string;
  /** The items of every sandbox in capture order: for messages a sorted set of `sandbox\0id` by sequence, for journal entries a list of sandbox names, newest first. */
  readonly order: string;
  /** Their bytes. */
  readonly bytes: string;
  /** The sequence that orders messages (journal entries are ordered by their list). */
  readonly sequence: string;
}

export interface RedisSharedBounds extends SharedBounds {
  /** Where the sandbox `name`'s outbox and journal charge their items. */
  forSandbox(name: string): { messages: RedisSandboxBound; journal: RedisSandboxBound };
}

/** The keys of one kind's bound, under `connection`'s prefix. */
function boundOn(connection: RedisConnection, kind: "outbox" | "journal", limits: BoundLimits, sandbox: string): RedisSandboxBound {
  return {
    limits,
    sandbox,
    environment: connection.key(""),
    order: connection.key(`bounds:${kind}:order`),
    bytes: connection.key(`bounds:${kind}:bytes`),
    sequence: connection.key(`bounds:${kind}:sequence`),
  };
}

/** A store's bound of its own, when it is given none: it is the default sandbox of the environment `connection` names. */
export function ownBound(connection: RedisConnection, kind: "outbox" | "journal", limits: BoundLimits): RedisSandboxBound {
  return boundOn(connection, kind, limits, DEFAULT_SANDBOX);
}

/** `connection` is the environment's, without a sandbox's prefix. */
export function createRedisSharedBounds(connection: RedisConnection, limits: { messages: BoundLimits; journal: BoundLimits }): RedisSharedBounds {
  const messages = ownBound(connection, "outbox", limits.messages);
  const journal = ownBound(connection, "journal", limits.journal);
  return {
    messages: limits.messages,
    journal: limits.journal,
    forSandbox: (name) => ({ messages: { ...messages, sandbox: name }, journal: { ...journal, sandbox: name } }),
    async usage() {
      const [messageCount, messageBytes, entryCount, entryBytes] = await connection.run((redis) =>
        Promise.all([redis.zcard(messages.order), redis.get(messages.bytes), redis.llen(journal.order), redis.get(journal.bytes)]),
      );
      return {
        messages: { count: messageCount, bytes: Number(messageBytes ?? 0) },
        journal: { count: entryCount, bytes: Number(entryBytes ?? 0) },
      };
    },
  };
}
