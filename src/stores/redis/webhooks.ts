// Webhooks and their delivery attempts in Redis, shared by replicas: the webhooks by id in a hash
// with their order in a list and the disabled ones in a set; the start-up webhooks written once,
// by the first replica on a prefix, so that every replica (and every reset) uses the same ids and
// generated secrets; the attempts by id beside a capped list of their ids, newest first, each
// attempt told to every replica when it ends.

import { attemptKeyOf, inWireOrder, selectDeliveries, type DeliveryLog, type StoredDelivery, type WebhookStore } from "../../domain/webhooks.js";
import type { Webhook } from "../../wire.js";
import type { StoreChannel } from "./channel.js";
import { luaScript, type RedisConnection } from "./connection.js";

/** KEYS: live hash, live order, start-up hash, start-up order, flag. ARGV: id and JSON of each start-up webhook. */
const INITIAL_SCRIPT = luaScript(`
if redis.call('EXISTS', KEYS[5]) == 1 then return 0 end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4])
for i = 1, #ARGV, 2 do
  redis.call('HSET', KEYS[3], ARGV[i], ARGV[i + 1])
  redis.call('RPUSH', KEYS[4], ARGV[i])
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
  redis.call('RPUSH', KEYS[2], ARGV[i])
end
redis.call('SET', KEYS[5], '1')
return 1`);

/** KEYS: live hash, live order, start-up hash, start-up order, disabled set. Puts the start-up webhooks back. */
const RESET_SCRIPT = luaScript(`
redis.call('DEL', KEYS[1], KEYS[2], KEYS[5])
for _, id in ipairs(redis.call('LRANGE', KEYS[4], 0, -1)) do
  redis.call('HSET', KEYS[1], id, redis.call('HGET', KEYS[3], id))
  redis.call('RPUSH', KEYS[2], id)
end
return 0`);

/** KEYS: live hash, live order. ARGV: id, JSON, limit. Counted in the same step, so two replicas cannot both take the last place. */
const ADD_SCRIPT = luaScript(`
if redis.call('LLEN', KEYS[2]) >= tonumber(ARGV[3]) then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('RPUSH', KEYS[2], ARGV[1])
return 1`);

/**
 * KEYS: live hash, live order, disabled set. Returns the webhooks' JSON in order and the disabled
 * ids: read per lifecycle event (two per send), one command where the order, the set and the hash
 * were three.
 */
const LIST_SCRIPT = luaScript(`
local ids = redis.call('LRANGE', KEYS[2], 0, -1)
local texts = {}
for index, id in ipairs(ids) do texts[index] = redis.call('HGET', KEYS[1], id) end
return {texts, redis.call('SMEMBERS', KEYS[3])}`);

export async function createRedisWebhookStore(connection: RedisConnection, startUp: readonly Webhook[]): Promise<WebhookStore> {
  const liveHash = connection.key("webhooks:hooks");
  const orderList = connection.key("webhooks:order");
  const startUpHash = connection.key("webhooks:startup:hooks");
  const startUpOrder = connection.key("webhooks:startup:order");
  const disabledSet = connection.key("webhooks:disabled");
  const initializedFlag = connection.key("webhooks:initialized");

  const args = startUp.flatMap((webhook) => [webhook.id, JSON.stringify({ ...webhook, enabled: true })]);
  await connection.script(INITIAL_SCRIPT, [liveHash, orderList, startUpHash, startUpOrder, initializedFlag], args);

  const withState = (text: string | null, disabled: ReadonlySet<string>): Webhook | undefined => {
    if (text === null) return undefined;
    const webhook = JSON.parse(text) as Webhook;
    return { ...webhook, enabled: !disabled.has(webhook.id) };
  };

  return {
    async list() {
      const [texts, disabled] = (await connection.script(LIST_SCRIPT, [liveHash, orderList, disabledSet], [])) as [(string | null)[], string[]];
      const off = new Set(disabled);
      return texts.flatMap((text) => withState(text, off) ?? []);
    },
    async get(id) {
      const [text, disabled] = await connection.run((redis) => Promise.all([redis.hget(liveHash, id), redis.sismember(disabledSet, id)]));
      return withState(text, disabled === 1 ? new Set([id]) : new Set());
    },
    async add(webhook, limit) {
      const added = await connection.script(ADD_SCRIPT, [liveHash, orderList], [webhook.id, JSON.stringify(webhook), String(limit)]);
      return added === 1;
    },
    async remove(id) {
      const results = await connection.run((redis) => redis.multi().hdel(liveHash, id).lrem(orderList, 0, id).srem(disabledSet, id).exec());
      return results?.[0]?.[1] === 1;
    },
    async disable(id) {
      await connection.run((redis) => redis.sadd(disabledSet, id));
    },
    async reset() {
      await connection.script(RESET_SCRIPT, [liveHash, orderList, startUpHash, startUpOrder, disabledSet], []);
    },
  };
}

// KEYS: ids list (newest first), items hash, highest number per attempt key, listed per attempt key.
// ARGV: id, the attempt's JSON, its attempt key, capacity, channel. Numbers the attempt and lists
// it in one step, so attempts made at once on any replica never share a number; the oldest go
// past capacity, each taking its count with it. Returns the attempt as listed.
const ADD_DELIVERY_SCRIPT = luaScript(`
local stored = cjson.decode(ARGV[2])
local key = ARGV[3]
local highest = tonumber(redis.call('HGET', KEYS[3], key) or '0')
stored.delivery.attempt = math.max(stored.delivery.attempt, highest + 1)
local json = cjson.encode(stored)
redis.call('HSET', KEYS[3], key, stored.delivery.attempt)
redis.call('HINCRBY', KEYS[4], key, 1)
redis.call('HSET', KEYS[2], ARGV[1], json)
redis.call('LPUSH', KEYS[1], ARGV[1])
while redis.call('LLEN', KEYS[1]) > tonumber(ARGV[4]) do
  local gone = redis.call('RPOP', KEYS[1])
  local text = redis.call('HGET', KEYS[2], gone)
  redis.call('HDEL', KEYS[2], gone)
  if text then
    local old = cjson.decode(text)
    local oldKey = old.delivery.event_id .. '/' .. old.delivery.webhook_id .. '/' .. old.copy
    if redis.call('HINCRBY', KEYS[4], oldKey, -1) <= 0 then
      redis.call('HDEL', KEYS[4], oldKey)
      redis.call('HDEL', KEYS[3], oldKey)
    end
  end
end
if stored.delivery.status ~= cjson.null or stored.delivery.error ~= cjson.null then
  redis.call('PUBLISH', ARGV[5], cjson.encode({type = 'delivery', delivery = stored.delivery}))
end
return json`);

// KEYS: items hash. ARGV: id, the delivery's JSON, channel. Replaces a listed attempt's delivery
// with how it ended, keeping its number; nothing when it is no longer listed.
const SETTLE_DELIVERY_SCRIPT = luaScript(`
local text = redis.call('HGET', KEYS[1], ARGV[1])
if not text then return 0 end
local stored = cjson.decode(text)
local delivery = cjson.decode(ARGV[2])
delivery.attempt = stored.delivery.attempt
stored.delivery = delivery
redis.call('HSET', KEYS[1], ARGV[1], cjson.encode(stored))
redis.call('PUBLISH', ARGV[3], cjson.encode({type = 'delivery', delivery = delivery}))
return 1`);

/** A stored attempt as a script wrote it back: its delivery's fields in their documented order. */
function storedOf(text: string): StoredDelivery {
  const stored = JSON.parse(text) as StoredDelivery;
  return { ...stored, delivery: inWireOrder(stored.delivery) };
}

export function createRedisDeliveryLog(connection: RedisConnection, channel: StoreChannel, capacity: number): DeliveryLog {
  const idsList = connection.key("webhooks:deliveries:ids");
  const itemsHash = connection.key("webhooks:deliveries:items");
  const highestHash = connection.key("webhooks:deliveries:highest");
  const listedHash = connection.key("webhooks:deliveries:listed");
  // At most `capacity` entries of a few hundred bytes each: reading them all to filter stays cheap.
  const all = async (): Promise<StoredDelivery[]> => {
    const ids = await connection.run((redis) => redis.lrange(idsList, 0, capacity - 1));
    if (ids.length === 0) return [];
    const texts = await connection.run((redis) => redis.hmget(itemsHash, ...ids));
    return texts.flatMap((text) => (text === null ? [] : [storedOf(text)]));
  };
  return {
    async add(attempt) {
      const listed = (await connection.script(
        ADD_DELIVERY_SCRIPT,
        [idsList, itemsHash, highestHash, listedHash],
        [attempt.delivery.id, JSON.stringify(attempt), attemptKeyOf(attempt), String(capacity), channel.name],
      )) as string;
      return storedOf(listed).delivery;
    },
    async settle(delivery) {
      await connection.script(SETTLE_DELIVERY_SCRIPT, [itemsHash], [delivery.id, JSON.stringify(delivery), channel.name]);
    },
    list: async (filter) => selectDeliveries(await all(), filter),
    async get(id) {
      const text = await connection.run((redis) => redis.hget(itemsHash, id));
      return text === null ? undefined : storedOf(text);
    },
    async clear() {
      await connection.run((redis) => redis.del(idsList, itemsHash, highestHash, listedHash));
    },
    onRecord: (listener) => channel.on("delivery", (event) => listener(inWireOrder(event.delivery))),
  };
}
