// The names of the sandboxes in use, one set in Redis for every replica: a new name is added and bounded in one script,
// and every replica is told of a new name, a name released and a clear.

import type { SandboxRegistry } from "../../domain/sandboxes.js";
import type { StoreChannel } from "./channel.js";
import { luaScript, type RedisConnection } from "./connection.js";

// KEYS: the set of names. ARGV: the name, the most names allowed, channel. Returns 1 when the
// name is known (now), 0 when the set is full; a name added is told to every replica.
const CLAIM_SCRIPT = luaScript(`
if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 1 then return 1 end
if redis.call('SCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('SADD', KEYS[1], ARGV[1])
redis.call('PUBLISH', ARGV[3], '{"type":"claimed","name":' .. cjson.encode(ARGV[1]) .. '}')
return 1`);

// KEYS: the set of names. ARGV: channel. Forgets them all and tells every replica.
const CLEAR_SCRIPT = luaScript(`
redis.call('DEL', KEYS[1])
redis.call('PUBLISH', ARGV[1], '{"type":"forgotten"}')
return 0`);

// KEYS: the set of names. ARGV: the name, channel. Forgets that name and tells every replica, when it was known.
const RELEASE_SCRIPT = luaScript(`
if redis.call('SREM', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('PUBLISH', ARGV[2], '{"type":"released","name":' .. cjson.encode(ARGV[1]) .. '}')
return 1`);

/** `channel`: the environment's, which every replica hears. */
export function createRedisSandboxRegistry(connection: RedisConnection, channel: StoreChannel): SandboxRegistry {
  const namesKey = connection.key("sandboxes");
  return {
    async claim(name, max) {
      return (await connection.script(CLAIM_SCRIPT, [namesKey], [name, max, channel.name])) === 1;
    },
    async names() {
      return (await connection.run((redis) => redis.smembers(namesKey))).sort();
    },
    async clear() {
      await connection.script(CLEAR_SCRIPT, [namesKey], [channel.name]);
    },
    async release(name) {
      await connection.script(RELEASE_SCRIPT, [namesKey], [name, channel.name]);
    },
    onClaimed: (listener) => channel.on("claimed", (event) => listener(event.name)),
    onCleared: (listener) => channel.on("forgotten", () => listener()),
    onReleased: (listener) => channel.on("released", (event) => listener(event.name)),
  };
}
