// The run-time settings in Redis: the changes PATCHed through any replica, in one hash under the
// prefix, numbered and announced on the store channel in the same script. Every replica keeps a
// copy, read on every request without a round trip, that the channel keeps fresh.

import { withChanges, type RuntimeSettings, type SettingsChange, type SettingsStore } from "../../domain/settings.js";
import type { StoreChannel } from "./channel.js";
import { luaScript, type RedisConnection } from "./connection.js";

/**
 * Writes a change (or, for a reset, drops every change), numbers the state that results and
 * tells every replica, in one step so that the numbers follow the order of the writes. The
 * number is Redis's clock in milliseconds, kept rising: after Redis restarts empty, a new change
 * still outnumbers what the replicas hold.
 * KEYS: changes hash, version. ARGV: channel, "change" or "reset", then field and JSON value
 * pairs. Returns {version, changes as field and value pairs}.
 */
const WRITE_SCRIPT = luaScript(`
if ARGV[2] == 'reset' then redis.call('DEL', KEYS[1]) end
for i = 3, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local version = string.format('%.0f', math.max(now, (tonumber(redis.call('GET', KEYS[2])) or 0) + 1))
redis.call('SET', KEYS[2], version)
local changes = redis.call('HGETALL', KEYS[1])
local listed = '[]'
if #changes > 0 then listed = cjson.encode(changes) end
redis.call('PUBLISH', ARGV[1], '{"type":"settings","version":' .. version .. ',"changes":' .. listed .. '}')
return {version, changes}`);

/** KEYS: changes hash, version. Returns {version, changes as field and value pairs}, as the write does. */
const READ_SCRIPT = luaScript(`return {redis.call('GET', KEYS[2]) or '0', redis.call('HGETALL', KEYS[1])}`);

const SETTING_NAMES: readonly (keyof RuntimeSettings)[] = ["responseShape", "strictData", "rateLimit"];

/**
 * Field and JSON value pairs -> the change they hold. The values are trusted as the JSON this
 * store wrote from a SettingsChange; a field this version does not know is left out.
 */
function changeOf(pairs: readonly string[]): SettingsChange {
  const change: Record<string, unknown> = {};
  for (let index = 0; index + 1 < pairs.length; index += 2) {
    const name = pairs[index] as keyof RuntimeSettings;
    if (SETTING_NAMES.includes(name)) change[name] = JSON.parse(pairs[index + 1] as string) as unknown;
  }
  return change;
}

function pairsOf(change: SettingsChange): string[] {
  return SETTING_NAMES.flatMap((name) => (change[name] === undefined ? [] : [name, JSON.stringify(change[name])]));
}

/**
 * A replica starting on a prefix whose settings were changed takes those changes over its own
 * start-up settings: behind a load balancer every replica must respond alike. A reset drops the
 * changes, so each replica goes back to its own start-up settings.
 */
export async function createRedisSettingsStore(connection: RedisConnection, channel: StoreChannel, startUp: RuntimeSettings): Promise<SettingsStore> {
  const changesHash = connection.key("settings");
  const versionKey = connection.key("settings:version");
  let settings = startUp;
  let appliedVersion = -1;
  let heard = 0;

  /** A state older than the one in force is skipped: a write's response and the channel's copy of it may arrive in either order. */
  const apply = (version: number, pairs: readonly string[]): void => {
    if (version <= appliedVersion) return;
    appliedVersion = version;
    settings = withChanges(startUp, changeOf(pairs));
  };

  const write = async (mode: "change" | "reset", pairs: string[]): Promise<RuntimeSettings> => {
    const [version, changes] = (await connection.script(WRITE_SCRIPT, [changesHash, versionKey], [channel.name, mode, ...pairs])) as [string, string[]];
    apply(Number(version), changes);
    return settings;
  };

  /**
   * Takes the stored state. When nothing was heard meanwhile it is the newest there is, and is
   * taken even when its number is lower: a Redis that restarted empty holds no number at all.
   */
  const read = async (): Promise<void> => {
    const heardBefore = heard;
    const [version, changes] = (await connection.script(READ_SCRIPT, [changesHash, versionKey], [])) as [string, string[]];
    if (heard === heardBefore) appliedVersion = -1;
    apply(Number(version), changes);
  };

  channel.on("settings", (event) => {
    heard += 1;
    apply(event.version, event.changes);
  });
  // Changes made while the channel was away were not heard; until Redis responds, the last known settings stay.
  channel.onListeningAgain(() => {
    read().catch(() => undefined);
  });
  await read();

  return {
    current: () => settings,
    update: (change) => write("change", pairsOf(change)),
    reset: () => write("reset", []),
  };
}
