// Webhooks and their delivery attempts in Redis, shared by replicas: the webhooks by id in a hash
// with their order in a list and the disabled ones in a set; the start-up webhooks written once,
// by the first replica on a prefix, so that every replica (and every reset) uses the same ids and
// generated secrets; the attempts in a capped list, newest first, each told to every replica.

import { selectDeliveries, type DeliveryLog, type StoredDelivery, type WebhookStore } from "../../domain/webhooks.js";
import type { Webhook } from "../../wire.js";
import type { StoreChannel } from "./channel.js";
import type { RedisConnection } from "./connection.js";

/** KEYS: live hash, live order, start-up hash, start-up order, flag. ARGV: id and JSON of each start-up webhook. */
const INITIAL_SCRIPT = `
if redis.call('EXISTS', KEYS[5]) == 1 then return 0 end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4])
for i = 1, #ARGV, 2 do
  redis.call('HSET', KEYS[3], ARGV[i], ARGV[i + 1])
  redis.call('RPUSH', KEYS[4], ARGV[i])
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
  redis.call('RPUSH', KEYS[2], ARGV[i])
end
redis.call('SET', KEYS[5], '1')
return 1`;

/** KEYS: live hash, live order, start-up hash, start-up order, disabled set. Puts the start-up webhooks back. */
const RESET_SCRIPT = `
redis.call('DEL', KEYS[1], KEYS[2], KEYS[5])
for _, id in ipairs(redis.call('LRANGE', KEYS[4], 0, -1)) do
  redis.call('HSET', KEYS[1], id, redis.call('HGET', KEYS[3], id))
  redis.call('RPUSH', KEYS[2], id)
end
return 0`;

/** KEYS: live hash, live order. ARGV: id, JSON, limit. Counted in the same step, so two replicas cannot both take the last place. */
const ADD_SCRIPT = `
if redis.call('LLEN', KEYS[2]) >= tonumber(ARGV[3]) then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('RPUSH', KEYS[2], ARGV[1])
return 1`;

export async function createRedisWebhookStore(connection: RedisConnection, startUp: readonly Webhook[]): Promise<WebhookStore> {
  const liveHash = connection.key("webhooks:hooks");
  const orderList = connection.key("webhooks:order");
  const startUpHash = connection.key("webhooks:startup:hooks");
  const startUpOrder = connection.key("webhooks:startup:order");
  const disabledSet = connection.key("webhooks:disabled");
  const initializedFlag = connection.key("webhooks:initialized");

  const args = startUp.flatMap((webhook) => [webhook.id, JSON.stringify({ ...webhook, enabled: true })]);
  await connection.run((redis) => redis.eval(INITIAL_SCRIPT, 5, liveHash, orderList, startUpHash, startUpOrder, initializedFlag, ...args));

  const withState = (text: string | null, disabled: ReadonlySet<string>): Webhook | undefined => {
    if (text === null) return undefined;
    const webhook = JSON.parse(text) as Webhook;
    return { ...webhook, enabled: !disabled.has(webhook.id) };
  };

  return {
    async list() {
      const [ids, disabled] = await connection.run((redis) => Promise.all([redis.lrange(orderList, 0, -1), redis.smembers(disabledSet)]));
      if (ids.length === 0) return [];
      const texts = await connection.run((redis) => redis.hmget(liveHash, ...ids));
      const off = new Set(disabled);
      return texts.flatMap((text) => withState(text, off) ?? []);
    },
    async get(id) {
      const [text, disabled] = await connection.run((redis) => Promise.all([redis.hget(liveHash, id), redis.sismember(disabledSet, id)]));
      return withState(text, disabled === 1 ? new Set([id]) : new Set());
    },
    async add(webhook, limit) {
      const added = await connection.run((redis) => redis.eval(ADD_SCRIPT, 2, liveHash, orderList, webhook.id, JSON.stringify(webhook), String(limit)));
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
      await connection.run((redis) => redis.eval(RESET_SCRIPT, 5, liveHash, orderList, startUpHash, startUpOrder, disabledSet));
    },
  };
}

export function createRedisDeliveryLog(connection: RedisConnection, channel: StoreChannel, capacity: number): DeliveryLog {
  const attemptsList = connection.key("webhooks:deliveries");
  // At most `capacity` entries of a few hundred bytes each: reading them all to filter stays cheap.
  const all = async (): Promise<StoredDelivery[]> =>
    (await connection.run((redis) => redis.lrange(attemptsList, 0, capacity - 1))).map((text) => JSON.parse(text) as StoredDelivery);
  return {
    async record(attempt) {
      await connection.run((redis) =>
        redis
          .multi()
          .lpush(attemptsList, JSON.stringify(attempt))
          .ltrim(attemptsList, 0, capacity - 1)
          // In the same transaction: a replica that hears of an attempt finds it listed.
          .publish(channel.name, JSON.stringify({ type: "delivery", delivery: attempt.delivery }))
          .exec(),
      );
    },
    list: async (filter) => selectDeliveries(await all(), filter),
    get: async (id) => (await all()).find((attempt) => attempt.delivery.id === id),
    async clear() {
      await connection.run((redis) => redis.del(attemptsList));
    },
    onRecord: (listener) => channel.on("delivery", (event) => listener(event.delivery)),
  };
}
