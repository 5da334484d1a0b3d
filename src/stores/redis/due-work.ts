// Due work in Redis, shared by replicas: a sorted set of ids by due time beside a hash of the
// items. Items are taken in a script, so each is taken by exactly one replica.

import type { DueItem, DueWorkStore } from "../../domain/scheduler.js";
import type { RedisConnection } from "./connection.js";

// KEYS: due set, items hash. ARGV: now (ms), limit. Answers the taken items' JSON, earliest first.
const CLAIM_SCRIPT = `
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
local taken = {}
for _, id in ipairs(ids) do
  redis.call('ZREM', KEYS[1], id)
  local item = redis.call('HGET', KEYS[2], id)
  redis.call('HDEL', KEYS[2], id)
  if item then taken[#taken + 1] = item end
end
return taken`;

// KEYS: due set, items hash. ARGV: id prefix of the kind. Forgets every item whose id has it.
const CLEAR_KIND_SCRIPT = `
local prefix = ARGV[1]
for _, id in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  if string.sub(id, 1, string.len(prefix)) == prefix then
    redis.call('ZREM', KEYS[1], id)
    redis.call('HDEL', KEYS[2], id)
  end
end
return 0`;

// KEYS: due set, items hash. ARGV: the groups. Reads every item: items of a group are few and
// rarely removed this way (a message dropped with webhook retries still pending), so no index of
// groups is kept up on every put and claim.
const REMOVE_GROUPS_SCRIPT = `
local wanted = {}
for _, group in ipairs(ARGV) do wanted[group] = true end
local fields = redis.call('HGETALL', KEYS[2])
for i = 1, #fields, 2 do
  local group = cjson.decode(fields[i + 1]).group
  if group and wanted[group] then
    redis.call('ZREM', KEYS[1], fields[i])
    redis.call('HDEL', KEYS[2], fields[i])
  end
end
return 0`;

/** @param name the keys' name under the prefix: each store of due work has its own. */
export function createRedisDueWork(connection: RedisConnection, name = "due"): DueWorkStore {
  const dueSet = connection.key(name);
  const itemsHash = connection.key(`${name}:items`);

  return {
    async put(item) {
      await connection.run((redis) => redis.multi().zadd(dueSet, item.dueAtMs, item.id).hset(itemsHash, item.id, JSON.stringify(item)).exec());
    },
    async remove(ids) {
      if (ids.length === 0) return;
      await connection.run((redis) =>
        redis
          .multi()
          .zrem(dueSet, ...ids)
          .hdel(itemsHash, ...ids)
          .exec(),
      );
    },
    async claimDue(nowMs, limit) {
      const taken = (await connection.run((redis) => redis.eval(CLAIM_SCRIPT, 2, dueSet, itemsHash, String(Math.floor(nowMs)), String(limit)))) as string[];
      return taken.map((text) => JSON.parse(text) as DueItem);
    },
    async nextDueAtMs() {
      const [, score] = await connection.run((redis) => redis.zrange(dueSet, "0", "0", "WITHSCORES"));
      return score === undefined ? undefined : Number(score);
    },
    async clear(kind) {
      await connection.run((redis) => redis.eval(CLEAR_KIND_SCRIPT, 2, dueSet, itemsHash, `${kind}:`));
    },
    async removeGroups(groups) {
      if (groups.length === 0) return;
      await connection.run((redis) => redis.eval(REMOVE_GROUPS_SCRIPT, 2, dueSet, itemsHash, ...groups));
    },
    size: () => connection.run((redis) => redis.zcard(dueSet)),
  };
}
