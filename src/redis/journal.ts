// The request journal in Redis: one list, newest first, cut to capacity in the same transaction
// that adds an entry and tells the other replicas.

import type { Journal } from "../domain/journal.js";
import type { JournalEntry } from "../wire.js";
import type { StoreChannel } from "./channel.js";
import type { RedisConnection } from "./connection.js";

export function createRedisJournal(connection: RedisConnection, channel: StoreChannel, options: { capacity: number }): Journal {
  const entriesList = connection.key("journal");

  return {
    async record(entry) {
      await connection.run((redis) =>
        redis
          .multi()
          .lpush(entriesList, JSON.stringify(entry))
          .ltrim(entriesList, 0, options.capacity - 1)
          .publish(channel.name, JSON.stringify({ type: "record", entry }))
          .exec(),
      );
    },

    async list({ limit } = {}) {
      const page = (redis: RedisConnection["commands"]): Promise<string[]> => {
        if (limit === undefined) return redis.lrange(entriesList, 0, -1);
        return limit < 1 ? Promise.resolve([]) : redis.lrange(entriesList, 0, limit - 1);
      };
      const [texts, total] = await connection.run((redis) => Promise.all([page(redis), redis.llen(entriesList)]));
      return { requests: texts.map((text) => JSON.parse(text) as JournalEntry), total };
    },

    async clear() {
      await connection.run((redis) => redis.del(entriesList));
    },

    onRecord: (listener) => channel.on("record", (event) => listener(event.entry)),
  };
}
