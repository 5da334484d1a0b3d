// Rules of any kind (faults, outcomes) in Redis: each rule's view and key digest by id, their
// order in a list, and the uses left of a rule with `times` in a hash, counted down in a script
// so that across all replicas a rule with `times: N` applies exactly N times.

import {
  compileRule,
  copyRule,
  createDraw,
  DEFAULT_MAX_RULES,
  lazyKeyDigest,
  newRule,
  ruleMatches,
  type CompiledRule,
  type RuleBook,
  type RuleBookOptions,
  type RuleInput,
  type RuleKind,
  type RuleView,
} from "../../domain/rule-book.js";
import { tooManyRules } from "../../domain/rule-limit.js";
import { luaScript, type RedisConnection } from "./connection.js";

// Every write stamps the rules' version, Redis's clock in µs kept rising (after Redis restarts
// empty, a new write still outnumbers what a replica holds), in the same step as the write: a
// replica reads the version alone per send and the rules only when it changed. Reading the order
// and the uses per send was two commands for faults and two for outcomes; the version is one
// GET each (~0.2 µs of Redis CPU). The writes are rare admin calls.
const STAMP_VERSION = `
local function stampVersion(key)
  local time = redis.call('TIME')
  local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
  redis.call('SET', key, string.format('%.0f', math.max(now, (tonumber(redis.call('GET', key)) or 0) + 1)))
end
`;

/**
 * 1 when a use was taken, 0 when none is left (another replica took the last); the last use
 * removes the rule. In a script so that across replicas a rule with `times: N` applies exactly N
 * times: read and counted down by the caller, two replicas took the last use both.
 * KEYS: uses, rules, order, version. ARGV: id.
 */
const USE_SCRIPT = luaScript(`${STAMP_VERSION}
local left = tonumber(redis.call('HGET', KEYS[1], ARGV[1]))
if left == nil or left <= 0 then return 0 end
left = redis.call('HINCRBY', KEYS[1], ARGV[1], -1)
if left <= 0 then
  redis.call('HDEL', KEYS[1], ARGV[1])
  redis.call('HDEL', KEYS[2], ARGV[1])
  redis.call('LREM', KEYS[3], 0, ARGV[1])
end
stampVersion(KEYS[4])
return 1`);

/**
 * The config's rules, written in one step with the flag that says they were, so a replica
 * starting beside another can neither write them twice nor wipe a rule added in between.
 * KEYS: rules, order, uses, flag, version. ARGV: "1" to write only on a new prefix, then id,
 * stored rule and uses left ("" for none) for each rule.
 */
const INITIAL_RULES_SCRIPT = luaScript(`${STAMP_VERSION}
if ARGV[1] == '1' and redis.call('EXISTS', KEYS[4]) == 1 then return 0 end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
redis.call('SET', KEYS[4], '1')
for i = 2, #ARGV, 3 do
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1])
  redis.call('RPUSH', KEYS[2], ARGV[i])
  if ARGV[i + 2] ~= '' then redis.call('HSET', KEYS[3], ARGV[i], ARGV[i + 2]) end
end
stampVersion(KEYS[5])
return 1`);

/** The size of every stored rule, summed in Redis rather than sent. KEYS: rules. */
const BYTES_SCRIPT = luaScript(`
local bytes = 0
for _, id in ipairs(redis.call('HKEYS', KEYS[1])) do bytes = bytes + redis.call('HSTRLEN', KEYS[1], id) end
return bytes`);

/**
 * Adds a rule unless max_rules are there, counted in the same step so that two replicas adding
 * at once cannot both take the last place. KEYS: rules, order, uses, version. ARGV: id, stored
 * rule, uses left ("" for none), max_rules.
 */
const ADD_SCRIPT = luaScript(`${STAMP_VERSION}
if redis.call('LLEN', KEYS[2]) >= tonumber(ARGV[4]) then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('RPUSH', KEYS[2], ARGV[1])
if ARGV[3] ~= '' then redis.call('HSET', KEYS[3], ARGV[1], ARGV[3]) end
stampVersion(KEYS[4])
return 1`);

/** Removes one rule (ARGV: its id; an empty id removes them all). KEYS: rules, order, uses, version. Returns 1 when there was such a rule. */
const REMOVE_SCRIPT = luaScript(`${STAMP_VERSION}
local removed = 0
if ARGV[1] == '' then
  redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
else
  removed = redis.call('LREM', KEYS[2], 0, ARGV[1])
  redis.call('HDEL', KEYS[1], ARGV[1])
  redis.call('HDEL', KEYS[3], ARGV[1])
end
stampVersion(KEYS[4])
return removed`);

/**
 * KEYS: order, uses, version. Returns the version, the ids in order and the uses left as field
 * and value pairs, read in one step: read apart, a write between them would be cached under the
 * version it came after, and never read again.
 */
const READ_SCRIPT = luaScript(`return {redis.call('GET', KEYS[3]) or '', redis.call('LRANGE', KEYS[1], 0, -1), redis.call('HGETALL', KEYS[2])}`);

interface StoredRule<V extends RuleView> {
  view: V;
  apiKeyDigest: string | null;
}

/**
 * The shared rules, holding the config's rules once: the first replica to start on an empty
 * prefix writes them, the others find them (and a reset writes them again).
 */
export async function createRedisRuleBook<I extends RuleInput, V extends RuleView>(
  connection: RedisConnection,
  kind: RuleKind<I, V>,
  options: RuleBookOptions<I>,
): Promise<RuleBook<I, V>> {
  // `faults:…`, `outcomes:…`: the names fault rules always had.
  const rulesHash = connection.key(`${kind.name}s:rules`);
  const orderList = connection.key(`${kind.name}s:order`);
  const usesHash = connection.key(`${kind.name}s:uses`);
  const initializedFlag = connection.key(`${kind.name}s:initialized`);
  const versionKey = connection.key(`${kind.name}s:version`);
  const now = options.now ?? (() => new Date());
  const draw = createDraw(options.seed);
  // Compiling globs per request would cost more than reading the rules; a rule never changes after it is added.
  const compiled = new Map<string, CompiledRule<V>>();

  const storedOf = (input: I, source: RuleView["source"]): StoredRule<V> => {
    const { view, apiKeyDigest } = newRule(kind, input, source, now());
    return { view, apiKeyDigest: apiKeyDigest ?? null };
  };

  /** Another replica may remove or use up a rule: its compiled form must not stay here for good. */
  function forgetRulesOtherThan(ids: ReadonlySet<string>): void {
    for (const id of compiled.keys()) if (!ids.has(id)) compiled.delete(id);
  }

  /** The rules as last read, under the version they were read at. */
  let known: { version: string; rules: CompiledRule<V>[] } | undefined;

  /** The rules and their order and uses left at `version`, read again. */
  async function readRules(): Promise<{ version: string; rules: CompiledRule<V>[] }> {
    const [version, ids, usePairs] = (await connection.script(READ_SCRIPT, [orderList, usesHash, versionKey], [])) as [string, string[], string[]];
    if (compiled.size > ids.length) forgetRulesOtherThan(new Set(ids));
    if (ids.length === 0) return { version, rules: [] };
    const uses = new Map<string, string>();
    for (let index = 0; index + 1 < usePairs.length; index += 2) uses.set(usePairs[index] as string, usePairs[index + 1] as string);
    // A rule is never changed once added: what the order names and the hash no longer holds was removed meanwhile.
    const texts = await connection.run((redis) => redis.hmget(rulesHash, ...ids));
    const rules: CompiledRule<V>[] = [];
    for (const text of texts) {
      if (text === null) continue;
      const stored = JSON.parse(text) as StoredRule<V>;
      let rule = compiled.get(stored.view.id);
      if (!rule) {
        rule = compileRule(stored.view, stored.apiKeyDigest ?? undefined);
        compiled.set(stored.view.id, rule);
      }
      const left = uses.get(stored.view.id);
      rules.push({ ...rule, view: { ...rule.view, times: left === undefined ? rule.view.times : Number(left) } });
    }
    return { version, rules };
  }

  /** The version read in this turn of the event loop, if one was asked for (see versionNow). */
  let versionRead: Promise<string> | undefined;

  /**
   * The rules' version. Sends that ask in the same turn of the event loop (their previous replies
   * came in one read) share one GET: each of them arrived before it was asked, so it sees every
   * write a client got a response before sending them. Under the bench's load this halved the GETs.
   */
  function versionNow(): Promise<string> {
    if (versionRead === undefined) {
      const read = connection.run((redis) => redis.get(versionKey)).then((version) => version ?? "");
      versionRead = read;
      process.nextTick(() => {
        if (versionRead === read) versionRead = undefined;
      });
    }
    return versionRead;
  }

  /** The rules in order, each with the uses left now: one GET while nothing changed. */
  async function currentRules(): Promise<CompiledRule<V>[]> {
    const version = await versionNow();
    if (known?.version !== version || version === "") known = await readRules();
    return known.rules;
  }

  /** The config's rules in place of all others; with `onlyIfNew`, only on a prefix no replica has set up. */
  const writeInitialRules = async (onlyIfNew: boolean): Promise<void> => {
    const rules = options.initialRules.flatMap((input) => {
      const stored = storedOf(input, "config");
      return [stored.view.id, JSON.stringify(stored), stored.view.times === null ? "" : String(stored.view.times)];
    });
    await connection.script(INITIAL_RULES_SCRIPT, [rulesHash, orderList, usesHash, initializedFlag, versionKey], [onlyIfNew ? "1" : "0", ...rules]);
    compiled.clear();
  };
  await writeInitialRules(true);

  return {
    async add(input) {
      const stored = storedOf(input, "api");
      const { view } = stored;
      const maxRules = options.maxRules ?? DEFAULT_MAX_RULES;
      const added = await connection.script(
        ADD_SCRIPT,
        [rulesHash, orderList, usesHash, versionKey],
        [view.id, JSON.stringify(stored), view.times === null ? "" : String(view.times), String(maxRules)],
      );
      if (added !== 1) throw tooManyRules(maxRules, `${kind.name} rules`);
      return copyRule(stored.view);
    },

    async list() {
      return (await currentRules()).map((rule) => copyRule(rule.view));
    },

    async count() {
      return connection.run((redis) => redis.llen(orderList));
    },

    async bytes() {
      return Number(await connection.script(BYTES_SCRIPT, [rulesHash], []));
    },

    async remove(id) {
      const removed = await connection.script(REMOVE_SCRIPT, [rulesHash, orderList, usesHash, versionKey], [id]);
      compiled.delete(id);
      return Number(removed) > 0;
    },

    async clear() {
      await connection.script(REMOVE_SCRIPT, [rulesHash, orderList, usesHash, versionKey], [""]);
      compiled.clear();
    },

    async reset() {
      await writeInitialRules(false);
      draw.reseed();
    },

    async apply(target, accept) {
      const keyDigest = lazyKeyDigest(target);
      for (const rule of await currentRules()) {
        if (!ruleMatches(rule, target, keyDigest) || !draw.wins(rule)) continue;
        let view = rule.view;
        if (view.times !== null) {
          const taken = await connection.script(USE_SCRIPT, [usesHash, rulesHash, orderList, versionKey], [rule.view.id]);
          if (taken !== 1) continue;
          view = { ...view, times: view.times - 1 };
        }
        if (accept(copyRule(view)) === "done") return;
      }
    },
  };
}
