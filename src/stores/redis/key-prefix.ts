// A sandbox's view of the one Redis connection: the same connections, every key and channel under a prefix of its own.

import type { RedisConnection } from "./connection.js";

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
