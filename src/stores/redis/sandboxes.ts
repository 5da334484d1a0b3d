// The names of the sandboxes in use, one set in Redis for every replica: a new name is added and bounded in one script.

import type { SandboxRegistry } from "../../domain/sandboxes.js";
import { luaScript, type RedisConnection } from "./connection.js";

// KEYS: the set of names. ARGV: the name, the most names allowed. Returns 1 when the name is known (now), 0 when the set is full.
const CLAIM_SCRIPT = luaScript(`
if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 1 then return 1 end
if redis.call('SCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('SADD', KEYS[1], ARGV[1])
return 1`);

export function createRedisSandboxRegistry(connection: RedisConnection): SandboxRegistry {
  const namesKey = connection.key("sandboxes");
  return {
    async claim(name, max) {
      return (await connection.script(CLAIM_SCRIPT, [namesKey], [name, max])) === 1;
    },
    async names() {
      return (await connection.run((redis) => redis.smembers(namesKey))).sort();
    },
    async clear() {
      await connection.run((redis) => redis.del(namesKey));
    },
  };
}
