// A sandbox's view of the one Redis connection: the same connections, every key and channel under a prefix of its own.

import { DEFAULT_SANDBOX } from "../../domain/sandboxes.js";
import type { RedisConnection } from "./connection.js";

/** What a named sandbox's keys and channel begin with after the environment's prefix (a name holds no `:`). */
export const SANDBOX_KEYS = "sandbox:";

/** The prefix of the sandbox `name`'s keys after the environment's: none for the default sandbox, which keeps the keys a mock had before sandboxes. */
export function sandboxKeyPrefix(name: string): string {
  return name === DEFAULT_SANDBOX ? "" : `${SANDBOX_KEYS}${name}:`;
}

/**
 * The same rule in Lua, for a script that reaches another sandbox's keys (a drop for the room
 * the bounds shared by all sandboxes give, shared-bounds.ts): `keysOf(environment, sandbox)`.
 */
export const LUA_KEYS_OF = `
local function keysOf(environment, sandbox)
  if sandbox == '${DEFAULT_SANDBOX}' then return environment end
  return environment .. '${SANDBOX_KEYS}' .. sandbox .. ':'
end
`;

/**
 * The connection with `prefix` put after the environment's own on every key and channel name.
 * Closing it closes nothing: the connections are the store's, shared by every sandbox.
 */
export function withKeyPrefix(connection: RedisConnection, prefix: string): RedisConnection {
  // Each sandbox's channel listens on the one subscriber connection: many sandboxes, many listeners, none a leak.
  connection.subscriber.setMaxListeners(0);
  connection.commands.setMaxListeners(0);
  return {
    ...connection,
    key: (name) => connection.key(`${prefix}${name}`),
    close: () => Promise.resolve(),
  };
}
