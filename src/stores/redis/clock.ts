// The mock's clock offset in Redis, one for all replicas: moved in a script that tells every
// replica at once, and read synchronously from a local copy that those notices keep fresh.

import type { ClockOffsetStore } from "../../domain/clock.js";
import type { StoreChannel } from "./channel.js";
import type { RedisConnection } from "./connection.js";

// KEYS: offset, version. ARGV: ms to add ("reset" sets 0), channel. Answers the new offset and
// its version: every move counts one up, so a replica that hears two moves out of order (a
// script's answer after the notice of a later move) keeps the later.
const MOVE_SCRIPT = `
local offset
if ARGV[1] == 'reset' then
  redis.call('SET', KEYS[1], '0')
  offset = 0
else
  offset = redis.call('INCRBY', KEYS[1], tonumber(ARGV[1]))
end
local version = redis.call('INCR', KEYS[2])
redis.call('PUBLISH', ARGV[2], '{"type":"clock","offsetMs":' .. offset .. ',"version":' .. version .. '}')
return {offset, version}`;

export async function createRedisClockOffset(connection: RedisConnection, channel: StoreChannel): Promise<ClockOffsetStore> {
  const offsetKey = connection.key("clock:offset");
  const versionKey = connection.key("clock:version");
  let local = { offsetMs: 0, version: -1 };
  const keepNewer = (offsetMs: number, version: number): void => {
    if (version > local.version) local = { offsetMs, version };
  };
  // Listening before reading: a move between the two is heard, and the read cannot undo it.
  channel.on("clock", (event) => keepNewer(event.offsetMs, event.version));
  const [offset, version] = await connection.run((redis) => Promise.all([redis.get(offsetKey), redis.get(versionKey)]));
  keepNewer(Number(offset ?? 0), Number(version ?? 0));

  const move = async (argument: string): Promise<number> => {
    const [offsetMs, moved] = (await connection.run((redis) => redis.eval(MOVE_SCRIPT, 2, offsetKey, versionKey, argument, channel.name))) as [number, number];
    keepNewer(offsetMs, moved);
    return local.offsetMs;
  };

  return {
    current: () => local.offsetMs,
    advance: (ms) => move(String(ms)),
    async reset() {
      await move("reset");
    },
  };
}
