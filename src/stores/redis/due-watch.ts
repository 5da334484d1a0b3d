// One watch over every sandbox's due work on Redis, for a replica: a look at all of them in one script a second, waking only
// the schedulers whose work is due, instead of a timer and two round trips a second per scheduler.

import type { WatchDue } from "../../domain/scheduler.js";
import { luaScript, type RedisConnection } from "./connection.js";
import type { RedisDueWork } from "./due-work.js";

// KEYS: each watched store's due set and held hash, in pairs. Returns, per store, the due time
// of its earliest waiting item ("" for none) and how many items replicas hold: work held by a
// replica that is gone is taken over by the next claim. ~1 µs of Redis CPU per store.
const LOOK_SCRIPT = luaScript(`
local found = {}
for i = 1, #KEYS, 2 do
  local earliest = redis.call('ZRANGE', KEYS[i], 0, 0, 'WITHSCORES')[2] or ''
  found[#found + 1] = earliest
  found[#found + 1] = redis.call('HLEN', KEYS[i + 1])
end
return found`);

interface Watched {
  store: RedisDueWork;
  /** Now on the clock of the store's sandbox, which the due times are on. */
  nowMs: () => number;
  wake: () => void;
}

export interface RedisDueWatch {
  /** The watch of one store of due work, on its sandbox's clock, for its scheduler. */
  of(store: RedisDueWork, nowMs: () => number): WatchDue;
  stop(): void;
}

/** `intervalMs`: how long work another replica scheduled or left may wait before this one looks (1 s). */
export function createRedisDueWatch(connection: RedisConnection, intervalMs: number): RedisDueWatch {
  const watched = new Set<Watched>();
  let timer: NodeJS.Timeout | undefined;
  let looking = false;

  async function look(): Promise<void> {
    const now = [...watched];
    const found = (await connection.script(
      LOOK_SCRIPT,
      now.flatMap(({ store }) => [store.dueSet, store.heldHash]),
      [],
    )) as (string | number)[];
    now.forEach((each, index) => {
      const earliest = found[index * 2];
      const held = Number(found[index * 2 + 1] ?? 0);
      if (held > 0 || (earliest !== "" && earliest !== undefined && Number(earliest) <= each.nowMs())) each.wake();
    });
  }

  const tick = (): void => {
    // A Redis slower than the interval is not asked again until it has responded.
    if (looking || watched.size === 0) return;
    looking = true;
    look()
      .catch(() => undefined)
      .finally(() => {
        looking = false;
      });
  };

  return {
    of(store, nowMs) {
      return (wake) => {
        const entry: Watched = { store, nowMs, wake };
        watched.add(entry);
        if (timer === undefined) {
          timer = setInterval(tick, intervalMs);
          // Unref'd: waiting work never keeps a process (a test runner, a CLI) alive.
          timer.unref();
        }
        return () => {
          watched.delete(entry);
          if (watched.size > 0) return;
          clearInterval(timer);
          timer = undefined;
        };
      };
    },
    stop() {
      watched.clear();
      clearInterval(timer);
      timer = undefined;
    },
  };
}
