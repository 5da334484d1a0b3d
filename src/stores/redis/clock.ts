// The mock's clock offset in Redis, one for all replicas: moved in a script that tells every
// replica at once, and read synchronously from a local copy that those notices keep fresh.

import type { ClockOffsetStore } from "../../domain/clock.js";
import type { StoreChannel } from "./channel.js";
import type { RedisConnection } from "./connection.js";

// KEYS: offset. ARGV: ms to add ("reset" sets 0), channel. Answers the new offset.
const MOVE_SCRIPT = `
local offset
if ARGV[1] == 'reset' then
  redis.call('SET', KEYS[1], '0')
  offset = 0
else
  offset = redis.call('INCRBY', KEYS[1], tonumber(ARGV[1]))
end
redis.call('PUBLISH', ARGV[2], '{"type":"clock","offsetMs":' .. offset .. '}')
return offset`;

export async function createRedisClockOffset(connection: RedisConnection, channel: StoreChannel): Promise<ClockOffsetStore> {
  const offsetKey = connection.key("clock:offset");
  let offsetMs = 0;
  // Listening before reading: a move between the two is heard, and the read cannot undo it.
  channel.on("clock", (event) => {
    offsetMs = event.offsetMs;
  });
  offsetMs = Number((await connection.run((redis) => redis.get(offsetKey))) ?? 0);

  const move = async (argument: string): Promise<number> => {
    offsetMs = Number(await connection.run((redis) => redis.eval(MOVE_SCRIPT, 1, offsetKey, argument, channel.name)));
    return offsetMs;
  };

  return {
    current: () => offsetMs,
    advance: (ms) => move(String(ms)),
    async reset() {
      await move("reset");
    },
  };
}
