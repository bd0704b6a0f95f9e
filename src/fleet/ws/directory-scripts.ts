/**
 * The Redis session directory's atomic steps, as Lua scripts: each runs whole inside Redis, so
 * a reaper's claim of a dead process's sessions, a process's heartbeat and a push's resolution
 * never interleave. Every key is `<prefix><name>`, with the prefix passed as ARGV[1] (the
 * scripts touch keys they discover, so the directory needs a single Redis, not a cluster):
 *
 * | key | type | holds |
 * |---|---|---|
 * | `alive:<proc>` | string, PX 3 × heartbeat | the process is alive |
 * | `procs` | set | every process that registered, alive or not yet reaped |
 * | `dead:<proc>` | string, PX 1 h | the process was reaped: its next heartbeat learns it |
 * | `owned:<proc>` | set | the process's session ids |
 * | `orphans:<proc>` | set | sessions of dead processes the process claimed and has not yet handled |
 * | `s:<sid>` | hash `o` owner, `i` info JSON, `g` groups (`name=value` by lines), `u` openid | one session |
 * | `u:<openid>` | set | a user's session ids |
 * | `g:<name>=<value>` | set | a group's session ids |
 * | `in:<proc>` | stream, capped | pushes and group changes for the process's sessions |
 * | `re:<proc>` | stream, capped | the owners' answers to the process's pushes |
 * | `bc` | stream, capped | group pushes, read by every process |
 * | `cid:<id>` | string | a connection id: `w` issued, `u` used |
 */

/** Lua shared by the scripts: a session record's indexes removed, and a string split by lines. */
const HELPERS = `
local function lines(text)
  local out = {}
  if text then for line in string.gmatch(text, '[^\\n]+') do out[#out + 1] = line end end
  return out
end
local function unindex(p, sid, owner, groups, openid)
  if owner then redis.call('SREM', p .. 'owned:' .. owner, sid) end
  if openid then redis.call('SREM', p .. 'u:' .. openid, sid) end
  for _, g in ipairs(lines(groups)) do redis.call('SREM', p .. 'g:' .. g, sid) end
  redis.call('DEL', p .. 's:' .. sid)
end
local function now()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
`;

/**
 * ARGV: prefix, proc, ttl ms. Refreshes the liveness key. Returns {state, redis ms}: state 1
 * when the key was there, 0 when it was missing (Redis flushed or restarted: re-register), -1
 * when the process was reaped (it must not write its records again under this id).
 */
export const HEARTBEAT = `${HELPERS}
local p, me = ARGV[1], ARGV[2]
local t = now()
if redis.call('EXISTS', p .. 'dead:' .. me) == 1 then return {-1, t} end
local had = redis.call('EXISTS', p .. 'alive:' .. me)
redis.call('SET', p .. 'alive:' .. me, t, 'PX', ARGV[3])
redis.call('SADD', p .. 'procs', me)
return {had, t}
`;

/**
 * ARGV: prefix, proc, limit, tombstone ms. Claims, for the caller alone, up to `limit` sessions
 * of processes whose liveness key is gone (and those a dead reaper had claimed and not yet
 * handled): their ids move from the dead process's `owned` set to the caller's `orphans` set in
 * this one step, so no other survivor sees them. A dead process with nothing left is forgotten,
 * with its streams. Returns how many were claimed: the answer is small, and the claim is kept in
 * Redis, so an answer lost to a timeout loses no orphan (the next heartbeat reads the set).
 */
export const REAP = `
local p, me, limit = ARGV[1], ARGV[2], tonumber(ARGV[3])
local mine = p .. 'orphans:' .. me
local n = 0
for _, proc in ipairs(redis.call('SMEMBERS', p .. 'procs')) do
  if n >= limit then break end
  if proc ~= me and redis.call('EXISTS', p .. 'alive:' .. proc) == 0 then
    redis.call('SET', p .. 'dead:' .. proc, '1', 'PX', ARGV[4])
    for _, set in ipairs({p .. 'owned:' .. proc, p .. 'orphans:' .. proc}) do
      local sids = redis.call('SPOP', set, limit - n)
      for _, sid in ipairs(sids) do redis.call('SADD', mine, sid) end
      n = n + #sids
    end
    if redis.call('SCARD', p .. 'owned:' .. proc) == 0 and redis.call('SCARD', p .. 'orphans:' .. proc) == 0 then
      redis.call('SREM', p .. 'procs', proc)
      redis.call('DEL', p .. 'in:' .. proc, p .. 're:' .. proc, p .. 'alive:' .. proc)
    end
  end
end
return n
`;

/**
 * ARGV: prefix, proc, limit. Reads up to `limit` of the caller's claimed orphans: {sid, info
 * JSON, groups} flat (a record already gone gives an empty info). Reads only: a lost answer is
 * read again.
 */
export const READ_ORPHANS = `
local p, me = ARGV[1], ARGV[2]
local out = {}
for _, sid in ipairs(redis.call('SRANDMEMBER', p .. 'orphans:' .. me, tonumber(ARGV[3]))) do
  local rec = redis.call('HMGET', p .. 's:' .. sid, 'o', 'i', 'g')
  out[#out + 1] = sid
  out[#out + 1] = rec[2] or ''
  out[#out + 1] = rec[3] or ''
end
return out
`;

/**
 * ARGV: prefix, proc, sids... The caller handled these orphans: their records (still the dead
 * owner's, not one registered since) and indexes are removed, and the claim. Idempotent.
 */
export const FORGET_ORPHANS = `${HELPERS}
local p, me = ARGV[1], ARGV[2]
for i = 3, #ARGV do
  local sid = ARGV[i]
  local rec = redis.call('HMGET', p .. 's:' .. sid, 'o', 'g', 'u')
  if rec[1] and rec[1] ~= me and redis.call('EXISTS', p .. 'alive:' .. rec[1]) == 0 then
    unindex(p, sid, rec[1], rec[2], rec[3])
  end
  redis.call('SREM', p .. 'orphans:' .. me, sid)
end
return 0
`;

/**
 * ARGV: prefix, proc, then (sid, openid, info JSON, groups) per session. Writes the records of
 * this process's sessions (a new one, or all of them again after Redis lost them); a record
 * another process left under the same id is unindexed first. Returns -1 when the process was
 * reaped, else the number written.
 */
export const REGISTER = `${HELPERS}
local p, me = ARGV[1], ARGV[2]
if redis.call('EXISTS', p .. 'dead:' .. me) == 1 then return -1 end
local n = 0
for i = 3, #ARGV, 4 do
  local sid, openid, info, groups = ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3]
  local key = p .. 's:' .. sid
  local old = redis.call('HMGET', key, 'o', 'g', 'u')
  if old[1] then unindex(p, sid, old[1], old[2], old[3]) end
  redis.call('HSET', key, 'o', me, 'i', info, 'g', groups, 'u', openid)
  redis.call('SADD', p .. 'owned:' .. me, sid)
  redis.call('SADD', p .. 'u:' .. openid, sid)
  for _, g in ipairs(lines(groups)) do redis.call('SADD', p .. 'g:' .. g, sid) end
  n = n + 1
end
return n
`;

/** ARGV: prefix, proc, sids... Removes the records of this process's sessions (another's are left). */
export const UNREGISTER = `${HELPERS}
local p, me = ARGV[1], ARGV[2]
for i = 3, #ARGV do
  local rec = redis.call('HMGET', p .. 's:' .. ARGV[i], 'o', 'g', 'u')
  if rec[1] == me then unindex(p, ARGV[i], me, rec[2], rec[3]) end
end
return 0
`;

/**
 * ARGV: prefix, proc, limit. A stopping process: up to `limit` of its sessions removed; when
 * none is left, its liveness key and its reply stream too, and its membership unless it holds
 * orphans it claimed (a survivor takes those over). Returns how many sessions remain.
 */
export const LEAVE = `${HELPERS}
local p, me, limit = ARGV[1], ARGV[2], tonumber(ARGV[3])
local owned = p .. 'owned:' .. me
for _, sid in ipairs(redis.call('SPOP', owned, limit)) do
  local rec = redis.call('HMGET', p .. 's:' .. sid, 'o', 'g', 'u')
  if rec[1] == me then unindex(p, sid, nil, rec[2], rec[3]) end
end
local left = redis.call('SCARD', owned)
if left == 0 then
  redis.call('DEL', p .. 'alive:' .. me, p .. 're:' .. me)
  -- Orphans it claimed and did not handle stay claimable: a survivor reaps them from it.
  if redis.call('SCARD', p .. 'orphans:' .. me) == 0 then redis.call('SREM', p .. 'procs', me) end
end
return left
`;

/**
 * ARGV: prefix, proc, action (join|leave), group, sids... Updates the records of sessions this
 * process owns (the others are left to their owners, who apply what they are sent).
 */
export const GROUP = `${HELPERS}
local p, me, action, group = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
for i = 5, #ARGV do
  local key = p .. 's:' .. ARGV[i]
  local rec = redis.call('HMGET', key, 'o', 'g')
  if rec[1] == me then
    local kept, found = {}, false
    for _, g in ipairs(lines(rec[2])) do
      if g == group then found = true end
      if g ~= group or action == 'join' then kept[#kept + 1] = g end
    end
    if action == 'join' then
      if not found then kept[#kept + 1] = group end
      redis.call('SADD', p .. 'g:' .. group, ARGV[i])
    else
      redis.call('SREM', p .. 'g:' .. group, ARGV[i])
    end
    redis.call('HSET', key, 'g', table.concat(kept, '\\n'))
  end
end
return 0
`;

/**
 * ARGV: prefix, proc, request id, deadline (ms on Redis' clock: when the sender gives up),
 * stream cap, stream ttl ms, type (p push, g group change), a, b, c (push: data, binary, via;
 * group: action, name, value), then sids. Resolves each session's owner and, in the same step,
 * adds one entry per remote owner to its inbox, stamped with the sender's deadline (not the
 * script's time plus the timeout: a script run late behind a burst would stamp a deadline after
 * the sender gave up, and a push reported failed could then be delivered). Returns per sid: the owner, '' when unknown, '!'
 * when its owner's liveness key is gone.
 */
export const SEND = `${HELPERS}
local p, me = ARGV[1], ARGV[2]
local deadline = tonumber(ARGV[4])
local out, per, order = {}, {}, {}
for i = 11, #ARGV do
  local sid = ARGV[i]
  local owner = redis.call('HGET', p .. 's:' .. sid, 'o')
  if not owner then out[#out + 1] = ''
  elseif owner ~= me and redis.call('EXISTS', p .. 'alive:' .. owner) == 0 then out[#out + 1] = '!'
  else
    out[#out + 1] = owner
    if owner ~= me then
      if not per[owner] then per[owner] = {}; order[#order + 1] = owner end
      local list = per[owner]
      list[#list + 1] = sid
    end
  end
end
for _, owner in ipairs(order) do
  local inbox = p .. 'in:' .. owner
  redis.call('XADD', inbox, 'MAXLEN', '~', ARGV[5], '*', 't', ARGV[7], 'r', ARGV[3], 'f', me, 'd', deadline,
    's', table.concat(per[owner], '\\n'), 'a', ARGV[8], 'b', ARGV[9], 'c', ARGV[10])
  redis.call('PEXPIRE', inbox, ARGV[6])
end
return out
`;

/** ARGV: prefix, set key (after the prefix). The set's sessions whose owner is alive. */
export const LIVE_MEMBERS = `
local p = ARGV[1]
local out = {}
for _, sid in ipairs(redis.call('SMEMBERS', p .. ARGV[2])) do
  local owner = redis.call('HGET', p .. 's:' .. sid, 'o')
  if owner and redis.call('EXISTS', p .. 'alive:' .. owner) == 1 then out[#out + 1] = sid end
end
return out
`;

/**
 * ARGV: prefix, sid. The session's {info JSON, groups} when its owner is alive, else nothing.
 */
export const QUERY = `
local p = ARGV[1]
local rec = redis.call('HMGET', p .. 's:' .. ARGV[2], 'o', 'i', 'g')
if not rec[1] or redis.call('EXISTS', p .. 'alive:' .. rec[1]) == 0 then return {} end
return {rec[2], rec[3] or ''}
`;

/**
 * ARGV: prefix, id, require issued (1|0), ttl ms of a used id. Takes a connection id once:
 * 'ok', 'used', or 'unknown' when it must have been issued and was not.
 */
export const TAKE_CONN_ID = `
local key = ARGV[1] .. 'cid:' .. ARGV[2]
local state = redis.call('GET', key)
if state == 'u' then return 'used' end
if not state and ARGV[3] == '1' then return 'unknown' end
redis.call('SET', key, 'u', 'PX', ARGV[4])
return 'ok'
`;
