// The outbox's Lua scripts (outbox.ts): each change to the messages, their indexes, the bounds every sandbox shares and the notices to the other replicas, in one step.

import { luaScript } from "./connection.js";
import { LUA_KEYS_OF } from "./key-prefix.js";

/** An outbox's keys after its sandbox's prefix: a script reaches another sandbox's outbox by them. */
export const OUTBOX_KEYS = {
  list: "outbox:keys",
  messages: "outbox:messages",
  dropped: "outbox:dropped",
  recipients: "outbox:recipients",
  bytes: "outbox:bytes",
  status: "outbox:status",
  events: "outbox:events",
  captured: "outbox:captured",
  sameTo: "outbox:to:",
  channel: "events",
} as const;

// KEYS[9], KEYS[10]: the bound's order (a sorted set of `sandbox\0id` by capture sequence) and
// bytes. Drops the oldest message of all sandboxes while past capacity or max_bytes, the newest
// always kept, from whichever sandbox's outbox holds it, and returns the ids dropped from this
// sandbox's; each other sandbox's replicas are told on its channel which of its messages went
// (their pending steps and webhook attempts go with them). In the same script as the add (or the
// event) that went past a bound, so that the count, the bytes and the lists agree for every
// replica: trimmed by the caller after a read, two replicas adding at once both saw one message
// too many and dropped two, or neither dropped any.
const DROP_PAST_BOUNDS = `${LUA_KEYS_OF}
local function dropOldestIn(prefix)
  local popped = redis.call('RPOP', prefix .. '${OUTBOX_KEYS.list}')
  if not popped then return nil, 0 end
  local keys = cjson.decode(popped)
  redis.call('HDEL', prefix .. '${OUTBOX_KEYS.messages}', keys.id)
  redis.call('HDEL', prefix .. '${OUTBOX_KEYS.status}', keys.id)
  local freed = keys.bytes or 0
  local events = redis.call('HGET', prefix .. '${OUTBOX_KEYS.events}', keys.id)
  if events then
    freed = freed + string.len(events)
    redis.call('HDEL', prefix .. '${OUTBOX_KEYS.events}', keys.id)
  end
  local sameTo = prefix .. '${OUTBOX_KEYS.sameTo}' .. keys.to
  redis.call('RPOP', sameTo)
  if redis.call('LLEN', sameTo) == 0 then redis.call('SREM', prefix .. '${OUTBOX_KEYS.recipients}', keys.to) end
  redis.call('DECRBY', prefix .. '${OUTBOX_KEYS.bytes}', freed)
  redis.call('INCR', prefix .. '${OUTBOX_KEYS.dropped}')
  return keys.id, freed
end

local function dropPastBounds(capacity, maxBytes, environment, own, count, bytes)
  local mine = {}
  local others = {}
  while count > 1 and (count > capacity or bytes > maxBytes) do
    local member = redis.call('ZPOPMIN', KEYS[9])[1]
    local sandbox = string.sub(member, 1, string.find(member, '\\0', 1, true) - 1)
    local prefix = keysOf(environment, sandbox)
    local id, freed = dropOldestIn(prefix)
    bytes = redis.call('DECRBY', KEYS[10], freed)
    count = count - 1
    if id and sandbox == own then
      mine[#mine + 1] = id
    elseif id then
      others[prefix] = others[prefix] or {}
      table.insert(others[prefix], id)
    end
  end
  for prefix, ids in pairs(others) do
    redis.call('PUBLISH', prefix .. '${OUTBOX_KEYS.channel}', '{"type":"dropped","ids":' .. cjson.encode(ids) .. '}')
  end
  return mine
end
`;

// KEYS: key list, messages hash, drop counter, set of recipients, bytes counter, status hash,
// events hash, capture sequence, the bound's order, bytes and sequence. ARGV: keys JSON, id,
// message JSON (without status and events), capacity, channel, the notice's opening (the
// message JSON goes after it, from its second character), prefix of the per-recipient lists,
// lowercased to, the message's bytes, max_bytes, the environment's prefix, sandbox. The message,
// its indexes, the bounds and the notice to the other replicas in one step: no replica ever
// reads a half-added message, and every one hears of each capture. The sequence starts at
// Redis's clock in µs, so that after Redis restarts empty it still outnumbers what a replica's
// word index has seen (replica-word-index.ts). Returns the dropped ids. Measured (one at a
// time, 2,000 each): ~22 µs of Redis CPU per add, ~24 µs when it drops the oldest, in one round
// trip; it was 79 and 132 µs with q's word index filed here.
export const ADD_SCRIPT = luaScript(`${DROP_PAST_BOUNDS}
redis.call('LPUSH', KEYS[1], ARGV[1])
redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
redis.call('HSET', KEYS[6], ARGV[2], 'queued')
redis.call('LPUSH', ARGV[7] .. ARGV[8], ARGV[2])
redis.call('SADD', KEYS[4], ARGV[8])
redis.call('INCRBY', KEYS[5], tonumber(ARGV[9]))
if redis.call('INCR', KEYS[8]) == 1 then
  local time = redis.call('TIME')
  redis.call('SET', KEYS[8], string.format('%.0f', tonumber(time[1]) * 1000000 + tonumber(time[2])))
end
redis.call('ZADD', KEYS[9], redis.call('INCR', KEYS[11]), ARGV[12] .. '\\0' .. ARGV[2])
local bytes = redis.call('INCRBY', KEYS[10], tonumber(ARGV[9]))
local dropped = dropPastBounds(tonumber(ARGV[4]), tonumber(ARGV[10]), ARGV[11], ARGV[12], redis.call('ZCARD', KEYS[9]), bytes)
redis.call('PUBLISH', ARGV[5], ARGV[6] .. string.sub(ARGV[3], 2) .. '}')
return dropped`);

// KEYS as for ADD_SCRIPT. ARGV: id, status, event JSON, channel, status as JSON, capacity,
// max_bytes, the environment's prefix, sandbox, most events ("" for no bound). Appends the event
// to the message's comma-joined events, told to every replica in the same step, then drops the
// oldest of all past max_bytes (an event grows its message). Returns the message as it is now
// and the dropped ids (nil when the message is gone or already has the most events). Counted
// here, not by the caller beforehand: by-hand events racing through two replicas both read 99
// and made it 101. ~16 µs of Redis CPU per event, one round trip; the lifecycle records two per send.
export const EVENT_SCRIPT = luaScript(`${DROP_PAST_BOUNDS}
local rest = redis.call('HGET', KEYS[2], ARGV[1])
if not rest then return false end
local events = redis.call('HGET', KEYS[7], ARGV[1])
if ARGV[10] ~= '' and events and events ~= '' and #cjson.decode('[' .. events .. ']') >= tonumber(ARGV[10]) then return false end
local added = string.len(ARGV[3])
if events and events ~= '' then
  events = events .. ',' .. ARGV[3]
  added = added + 1
else
  events = ARGV[3]
end
redis.call('HSET', KEYS[7], ARGV[1], events)
redis.call('HSET', KEYS[6], ARGV[1], ARGV[2])
redis.call('INCRBY', KEYS[5], added)
local bytes = redis.call('INCRBY', KEYS[10], added)
local message = '{"status":' .. ARGV[5] .. ',"events":[' .. events .. '],' .. string.sub(rest, 2)
redis.call('PUBLISH', ARGV[4], '{"type":"event","event":' .. ARGV[3] .. ',"message":' .. message .. '}')
-- An event adds bytes, never a message: the count need not be read unless the bytes went past their bound.
if bytes <= tonumber(ARGV[7]) then return {message, {}} end
return {message, dropPastBounds(tonumber(ARGV[6]), tonumber(ARGV[7]), ARGV[8], ARGV[9], redis.call('ZCARD', KEYS[9]), bytes)}`);

// KEYS as for ADD_SCRIPT. ARGV: the opening of the message's keys JSON, `{"id":"…",` (ids are
// written first; empty for the newest), prefix of the per-recipient lists, sandbox. Finds the
// keys, then takes out everything indexed for it and gives its bytes and its place in the bounds
// back, in one step for the same reason as the drops. Returns the id deleted, or nil. A scan of
// the key list: deleting one message is a rare admin call, and an index by id would cost every
// capture a write.
export const DELETE_SCRIPT = luaScript(`
local found
if ARGV[1] == '' then
  found = redis.call('LINDEX', KEYS[1], 0)
else
  local opening = ARGV[1]
  for _, item in ipairs(redis.call('LRANGE', KEYS[1], 0, -1)) do
    if string.sub(item, 1, string.len(opening)) == opening then
      found = item
      break
    end
  end
end
if not found then return false end
local keys = cjson.decode(found)
redis.call('LREM', KEYS[1], 1, found)
redis.call('HDEL', KEYS[2], keys.id)
redis.call('HDEL', KEYS[6], keys.id)
local freed = keys.bytes or 0
local events = redis.call('HGET', KEYS[7], keys.id)
if events then
  freed = freed + string.len(events)
  redis.call('HDEL', KEYS[7], keys.id)
end
redis.call('DECRBY', KEYS[5], freed)
redis.call('DECRBY', KEYS[10], freed)
redis.call('ZREM', KEYS[9], ARGV[3] .. '\\0' .. keys.id)
local sameTo = ARGV[2] .. keys.to
redis.call('LREM', sameTo, 1, keys.id)
if redis.call('LLEN', sameTo) == 0 then redis.call('SREM', KEYS[4], keys.to) end
return keys.id`);

// KEYS as for ADD_SCRIPT. ARGV: prefix of the per-recipient lists, channel, event, sandbox. Gives
// the messages' places and bytes back to the bounds. The capture sequence stays: it counts
// captures for the replicas' word indexes, which a clear does not undo.
export const CLEAR_SCRIPT = luaScript(`
local members = {}
for _, item in ipairs(redis.call('LRANGE', KEYS[1], 0, -1)) do
  members[#members + 1] = ARGV[4] .. '\\0' .. cjson.decode(item).id
  if #members == 500 then
    redis.call('ZREM', KEYS[9], unpack(members))
    members = {}
  end
end
if #members > 0 then redis.call('ZREM', KEYS[9], unpack(members)) end
redis.call('DECRBY', KEYS[10], tonumber(redis.call('GET', KEYS[5]) or '0'))
for _, to in ipairs(redis.call('SMEMBERS', KEYS[4])) do redis.call('DEL', ARGV[1] .. to) end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7])
redis.call('PUBLISH', ARGV[2], ARGV[3])
return 0`);

// KEYS: capture sequence, key list. ARGV: the sequence a replica's word index has seen ("" for
// none). Returns the sequence, the count kept and the keys of the kept messages captured since
// (all of them for ""), newest first: read in one step, so that no capture falls between the
// sequence and the list.
export const CAPTURED_SINCE_SCRIPT = luaScript(`
local captured = tonumber(redis.call('GET', KEYS[1]) or '0')
local kept = redis.call('LLEN', KEYS[2])
local count = kept
if ARGV[1] ~= '' then count = math.min(kept, captured - tonumber(ARGV[1])) end
local keys = {}
if count > 0 then keys = redis.call('LRANGE', KEYS[2], 0, count - 1) end
return {string.format('%.0f', captured), kept, keys}`);
