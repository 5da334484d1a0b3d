// The mock's clock offset in Redis, one for all replicas: moved in a script that tells every
// replica at once, and read synchronously from a local copy that those notices keep fresh.

import type { ClockOffsetStore } from "../../domain/clock.js";
import type { StoreChannel } from "./channel.js";
import { luaScript, type RedisConnection } from "./connection.js";

// KEYS: offset, version. ARGV: ms to add ("reset" sets 0), channel, the largest offset allowed
// ("" for none). Returns the new offset and its version: every move counts one up, so a replica
// that hears two moves out of order (a script's response after the notice of a later move) keeps
// the later. A move past the largest offset moves nothing and returns the offset with version -1.
const MOVE_SCRIPT = luaScript(`
local offset
if ARGV[1] == 'reset' then
  redis.call('SET', KEYS[1], '0')
  offset = 0
else
  local current = tonumber(redis.call('GET', KEYS[1]) or '0')
  if ARGV[3] ~= '' and current + tonumber(ARGV[1]) > tonumber(ARGV[3]) then
    return {current, -1}
  end
  offset = redis.call('INCRBY', KEYS[1], tonumber(ARGV[1]))
end
local version = redis.call('INCR', KEYS[2])
redis.call('PUBLISH', ARGV[2], '{"type":"clock","offsetMs":' .. offset .. ',"version":' .. version .. '}')
return {offset, version}`);

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

  const move = async (argument: string, maxOffsetMs = ""): Promise<number | undefined> => {
    const [offsetMs, moved] = (await connection.script(MOVE_SCRIPT, [offsetKey, versionKey], [argument, channel.name, maxOffsetMs])) as [number, number];
    if (moved === -1) return undefined;
    keepNewer(offsetMs, moved);
    return local.offsetMs;
  };

  return {
    current: () => local.offsetMs,
    // Whole milliseconds: Lua compares it as a number, and a fraction of one changes nothing.
    advance: (ms, maxOffsetMs) => move(String(ms), maxOffsetMs === undefined ? "" : String(Math.floor(maxOffsetMs))),
    async reset() {
      await move("reset");
    },
  };
}
