// The rolling windows in Redis: one sorted set per key, whose members stand for
// requests let in, scored by their time. A member "n#id" stands for n requests
// (a grant: src/domain/window-grant.ts); a member without "#" for one. Each
// script runs atomically in Redis.

/** How many requests a member stands for (Lua). */
const COUNT_OF = `
local function count_of(member)
  local n = string.match(member, '^(%d+)#')
  if n then return tonumber(n) end
  return 1
end
`;

/**
 * Settles the grant this instance held before (ARGV[6] its member; kept as the ARGV[7] requests it let in, at
 * ARGV[8], the time of the last, under id ARGV[9]), then takes a new one of at most ARGV[4] requests under id
 * ARGV[5] at ARGV[1], of a window of ARGV[2] ms and ARGV[3] requests. Returns the requests granted, the count
 * before them, when the oldest leaves the window and, when none were granted, when one would fit again.
 */
export const ACQUIRE_GRANT = `${COUNT_OF}
local key = KEYS[1]
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local max = tonumber(ARGV[3])
local want = tonumber(ARGV[4])
if ARGV[6] ~= '' and redis.call('ZREM', key, ARGV[6]) == 1 and tonumber(ARGV[7]) > 0 then
  redis.call('ZADD', key, tonumber(ARGV[8]), ARGV[7] .. '#' .. ARGV[9])
end
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
local members = redis.call('ZRANGE', key, 0, -1, 'WITHSCORES')
local count = 0
for i = 1, #members, 2 do count = count + count_of(members[i]) end
local granted = math.max(0, math.min(want, max - count))
if granted > 0 then redis.call('ZADD', key, now, granted .. '#' .. ARGV[5]) end
redis.call('PEXPIRE', key, window)
local first = now
if #members > 0 then first = tonumber(members[2]) end
local retry = now
if granted == 0 then
  retry = now + window
  local excess = count - max + 1
  local left = 0
  for i = 1, #members, 2 do
    left = left + count_of(members[i])
    if left >= excess then
      retry = tonumber(members[i + 1]) + window
      break
    end
  end
end
return {granted, count, first + window, retry}
`;

/** Settles a grant (ARGV[1] its member) as the ARGV[2] requests it let in, at ARGV[3], under id ARGV[4]. */
export const SETTLE_GRANT = `
if redis.call('ZREM', KEYS[1], ARGV[1]) == 1 and tonumber(ARGV[2]) > 0 then
  redis.call('ZADD', KEYS[1], tonumber(ARGV[3]), ARGV[2] .. '#' .. ARGV[4])
end
return 1
`;

/** The requests in the window of ARGV[2] ms at ARGV[1], and when the oldest leaves it. */
export const PEEK_WINDOW = `${COUNT_OF}
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local members = redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. (now - window), '+inf', 'WITHSCORES')
local count = 0
for i = 1, #members, 2 do count = count + count_of(members[i]) end
local first = now
if #members > 0 then first = tonumber(members[2]) end
return {count, first + window}
`;

/**
 * Takes back a grant whose taking went unanswered (ARGV[1] its id): Redis may have run it after this instance gave
 * up waiting, and its member, "n#id", names a size this instance never learnt.
 */
export const RELEASE_GRANT = `
local suffix = '#' .. ARGV[1]
local members = redis.call('ZRANGE', KEYS[1], 0, -1)
for _, member in ipairs(members) do
  if string.sub(member, -#suffix) == suffix then redis.call('ZREM', KEYS[1], member) end
end
return 1
`;
