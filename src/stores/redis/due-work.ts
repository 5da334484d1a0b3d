// Due work in Redis, shared by replicas: a sorted set of the waiting ids by due time, a hash of
// every item, and a hash of the items a replica took and is running, each naming its lease.
// Items are taken in a script, so each is taken by exactly one replica; one taken by a replica
// that is gone (its lease key expired, or let go when it stopped) is taken again by another.

import type { DueItem, DueWorkStore } from "../../domain/scheduler.js";
import { luaScript, type RedisConnection } from "./connection.js";
import type { ReplicaLease } from "./replica-lease.js";

// KEYS: due set, items hash, held hash. ARGV: now (ms), limit, this claim's token
// (`<owner>/<claim>`), prefix of the owners' lease keys. First puts back what is held under a
// lease that is gone; then takes the due items, earliest first, holding them under the token,
// and returns their JSON. Taking them away outright lost them with a replica killed mid-batch:
// 99 of 300 messages stayed queued for good. In a script so that each item is taken by one
// replica only (read, then removed by the caller, two replicas ran the same step): ~6 µs of
// Redis CPU per item taken (598 µs per batch of 100).
const CLAIM_SCRIPT = luaScript(`
local token = ARGV[3]
local me = string.match(token, '^[^/]*')
local alive = {}
local held = redis.call('HGETALL', KEYS[3])
for i = 1, #held, 2 do
  local owner = string.match(held[i + 1], '^[^/]*')
  if owner ~= me then
    if alive[owner] == nil then alive[owner] = redis.call('EXISTS', ARGV[4] .. owner) == 1 end
    if not alive[owner] then
      redis.call('HDEL', KEYS[3], held[i])
      local item = redis.call('HGET', KEYS[2], held[i])
      if item then redis.call('ZADD', KEYS[1], string.format('%.17g', cjson.decode(item).dueAtMs), held[i]) end
    end
  end
end
local taken = {}
for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))) do
  redis.call('ZREM', KEYS[1], id)
  local item = redis.call('HGET', KEYS[2], id)
  if item then
    redis.call('HSET', KEYS[3], id, token)
    taken[#taken + 1] = item
  end
end
return taken`);

// KEYS: due set, items hash, held hash. ARGV: id, due time, item JSON. Waiting set and item
// together, or a claim between the two would take the id without its item and lose it; one
// script rather than MULTI: 1 command in place of 5 (~5 µs of Redis CPU), two puts per send
// with the lifecycle on.
const PUT_SCRIPT = luaScript(`
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
redis.call('HDEL', KEYS[3], ARGV[1])
return 0`);

// KEYS: due set, items hash, held hash. ARGV: the ids. Forgets them, waiting or held: one
// command in place of MULTI's five, once per send when every capture drops the oldest.
const REMOVE_SCRIPT = luaScript(`
for _, id in ipairs(ARGV) do
  redis.call('ZREM', KEYS[1], id)
  redis.call('HDEL', KEYS[2], id)
  redis.call('HDEL', KEYS[3], id)
end
return 0`);

// KEYS: items hash, held hash. ARGV: id, the token it was taken under. An item put again since
// (no longer held under that token) is the next piece of work, and stays.
const COMPLETE_SCRIPT = luaScript(`
if redis.call('HGET', KEYS[2], ARGV[1]) == ARGV[2] then
  redis.call('HDEL', KEYS[2], ARGV[1])
  redis.call('HDEL', KEYS[1], ARGV[1])
end
return 0`);

// KEYS: due set, items hash, held hash. ARGV: id prefix of the kind. Forgets every item whose id
// has it, waiting or held.
const CLEAR_KIND_SCRIPT = luaScript(`
local prefix = ARGV[1]
for _, id in ipairs(redis.call('HKEYS', KEYS[2])) do
  if string.sub(id, 1, string.len(prefix)) == prefix then
    redis.call('ZREM', KEYS[1], id)
    redis.call('HDEL', KEYS[2], id)
    redis.call('HDEL', KEYS[3], id)
  end
end
return 0`);

// KEYS: due set, items hash, held hash. ARGV: the groups. Reads every item: items of a group are
// few and rarely removed this way (a message dropped with webhook retries still pending), so no
// index of groups is kept up on every put and claim.
const REMOVE_GROUPS_SCRIPT = luaScript(`
local wanted = {}
for _, group in ipairs(ARGV) do wanted[group] = true end
local fields = redis.call('HGETALL', KEYS[2])
for i = 1, #fields, 2 do
  local group = cjson.decode(fields[i + 1]).group
  if group and wanted[group] then
    redis.call('ZREM', KEYS[1], fields[i])
    redis.call('HDEL', KEYS[2], fields[i])
    redis.call('HDEL', KEYS[3], fields[i])
  end
end
return 0`);

/** Due work in Redis, with the keys a watch looks at (due-watch.ts). */
export interface RedisDueWork extends DueWorkStore {
  readonly dueSet: string;
  readonly heldHash: string;
}

/**
 * @param lease this replica's: what it takes is held under it, and taken over once it is gone
 * @param name the keys' name under the prefix: each store of due work has its own.
 */
export function createRedisDueWork(connection: RedisConnection, lease: ReplicaLease, name = "due"): RedisDueWork {
  const dueSet = connection.key(name);
  const itemsHash = connection.key(`${name}:items`);
  const heldHash = connection.key(`${name}:held`);
  // The token each item was taken under, by the very object handed out: the scheduler completes
  // that object, and an id taken again later (its next step) has another token.
  const tokens = new WeakMap<DueItem, string>();
  // The items this replica holds, by id: putting one again (its next step) ends its hold in the
  // same script, so its completion has nothing left to do and sends nothing (one command per send).
  const heldHere = new Map<string, DueItem>();
  let claims = 0;

  return {
    dueSet,
    heldHash,
    async put(item) {
      await connection.script(PUT_SCRIPT, [dueSet, itemsHash, heldHash], [item.id, item.dueAtMs, JSON.stringify(item)]);
      const held = heldHere.get(item.id);
      if (held === undefined) return;
      heldHere.delete(item.id);
      tokens.delete(held);
    },
    async remove(ids) {
      if (ids.length === 0) return;
      await connection.script(REMOVE_SCRIPT, [dueSet, itemsHash, heldHash], ids);
    },
    async claimDue(nowMs, limit) {
      // A replica that let go of its lease (stopping) would take work the others take over at once.
      if (lease.isReleased()) return [];
      claims += 1;
      const token = `${lease.owner}/${claims}`;
      const taken = (await connection.script(
        CLAIM_SCRIPT,
        [dueSet, itemsHash, heldHash],
        [String(Math.floor(nowMs)), String(limit), token, lease.ownerKeyPrefix],
      )) as string[];
      return taken.map((text) => {
        const item = JSON.parse(text) as DueItem;
        tokens.set(item, token);
        heldHere.set(item.id, item);
        return item;
      });
    },
    async complete(item) {
      const token = tokens.get(item);
      if (heldHere.get(item.id) === item) heldHere.delete(item.id);
      if (token === undefined) return;
      tokens.delete(item);
      await connection.script(COMPLETE_SCRIPT, [itemsHash, heldHash], [item.id, token]);
    },
    async nextDueAtMs() {
      const [, score] = await connection.run((redis) => redis.zrange(dueSet, "0", "0", "WITHSCORES"));
      return score === undefined ? undefined : Number(score);
    },
    async clear(kind) {
      await connection.script(CLEAR_KIND_SCRIPT, [dueSet, itemsHash, heldHash], [`${kind}:`]);
    },
    async removeGroups(groups) {
      if (groups.length === 0) return;
      await connection.script(REMOVE_GROUPS_SCRIPT, [dueSet, itemsHash, heldHash], groups);
    },
    size: () => connection.run((redis) => redis.zcard(dueSet)),
  };
}
