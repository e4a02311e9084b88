/**
 * The check-and-count script of key layout 2 as the release before issue 41
 * ran it: the same hash and the same answers as the current one, but when
 * the oldest slot has left the window it reads every field (`HGETALL`) to
 * find the next. `deno task bench:enforce` measures it beside the current
 * script, so that the table shows before and after in one run.
 *
 * @module
 */
export const PREVIOUS_LAYOUT_2_SCRIPT = `
local key = KEYS[1]
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local slots = tonumber(ARGV[3])
local now
if ARGV[4] then
  now = tonumber(ARGV[4])
else
  local time = redis.call('TIME')
  now = tonumber(time[1]) * 1000000 + tonumber(time[2])
end
local g = math.ceil(window / slots)
local current = (now - math.fmod(now, g)) / g
local oldest = current - slots
local total, first, firstCount, last, lastCount = 0, nil, 0, nil, 0
local summary = redis.call('HGET', key, 's')
if summary then
  if #summary ~= 40 then
    return redis.error_reply('not a throttle bucket of layout 2: its summary is unreadable')
  end
  total, first, firstCount, last, lastCount = struct.unpack('<ddddd', summary)
elseif redis.call('EXISTS', key) == 1 then
  return redis.error_reply('not a throttle bucket of layout 2: the key holds no summary')
end
-- Every slot, when the oldest has left the window or a refusal needs more than the oldest:
-- live[i], ascending, and counts[slot]; the newest is in the summary only.
local live, counts, changed
if first ~= nil and (first < oldest or (limit > 0 and firstCount < total - limit + 1)) then
  local flat = redis.call('HGETALL', key)
  local stale = {}
  live, counts, total = {}, {}, 0
  if last >= oldest then
    live[1], counts[last], total = last, lastCount, lastCount
  else
    changed = true
  end
  for i = 1, #flat, 2 do
    local field = flat[i]
    if field ~= 's' then
      local slot = tonumber(field)
      if slot < oldest then
        stale[#stale + 1] = field
      else
        live[#live + 1] = slot
        counts[slot] = tonumber(flat[i + 1])
        total = total + counts[slot]
      end
    end
  end
  if #stale > 0 then
    redis.call('HDEL', key, unpack(stale))
    changed = true
  end
  if #live == 0 then
    first, firstCount, last, lastCount = nil, 0, nil, 0
  else
    table.sort(live)
    first = live[1]
    firstCount = counts[first]
  end
end
local admitted = total < limit
if admitted then
  total = total + 1
  if last == nil then
    first, firstCount, last, lastCount = current, 1, current, 1
    redis.call('HSET', key, 's', struct.pack('<ddddd', total, first, firstCount, last, lastCount))
  elseif last < current then
    -- A new newest slot: the previous one gets its field.
    local previous, previousCount = last, lastCount
    last, lastCount = current, 1
    redis.call('HSET', key, string.format('%d', previous), previousCount,
      's', struct.pack('<ddddd', total, first, firstCount, last, lastCount))
  else
    -- The newest slot (later than now when the clock stepped back: nothing uncounts).
    lastCount = lastCount + 1
    if first == last then firstCount = lastCount end
    redis.call('HSET', key, 's', struct.pack('<ddddd', total, first, firstCount, last, lastCount))
  end
  -- A new newest slot: the hash lives until it leaves the window (on the real clock only).
  if lastCount == 1 and not ARGV[4] then
    redis.call('PEXPIRE', key, math.ceil(((last + slots + 1) * g - now) / 1000))
  end
elseif changed then
  -- Slots left the window and nothing was counted: the summary follows, or the key goes.
  if first == nil then
    redis.call('DEL', key)
  else
    redis.call('HSET', key, 's', struct.pack('<ddddd', total, first, firstCount, last, lastCount))
  end
end
-- A slot leaves the count at (slot + slots + 1) g.
local retry = 0
if not admitted then
  retry = -1
  if limit > 0 then
    local excess = total - limit + 1
    if firstCount >= excess then
      retry = (first + slots + 1) * g - now
    else
      local freed = 0
      for i = 1, #live do
        freed = freed + counts[live[i]]
        if freed >= excess then
          retry = (live[i] + slots + 1) * g - now
          break
        end
      end
    end
  end
end
local reset = -1
if first ~= nil then reset = (first + slots + 1) * g - now end
local remaining = limit - total
if remaining < 0 then remaining = 0 end
return { admitted and 1 or 0, remaining, reset, retry, now }
`;
