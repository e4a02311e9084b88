/**
 * The check-and-count script of key layout 1 (`<prefix><bucket>`, a hash of
 * slot counters, read whole by every check), as releases before layout 2
 * ran it: the mixed-fleet tests run it beside the current one on one Redis.
 * KEYS[1]: the bucket's hash. ARGV: limit, window (µs), slots per window,
 * and, for the tests only, a time (µs) used instead of `TIME`.
 *
 * @module
 */
export const LAYOUT_1_SCRIPT = `
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
local flat = redis.call('HGETALL', KEYS[1])
-- live[i], counts[i]: the slots still in the window, ascending, and their counts.
local live, counts, stale, total, sorted = {}, {}, {}, 0, true
for i = 1, #flat, 2 do
  local slot = tonumber(flat[i])
  if slot < oldest then
    stale[#stale + 1] = flat[i]
  else
    if #live > 0 and slot < live[#live] then sorted = false end
    live[#live + 1] = slot
    counts[slot] = tonumber(flat[i + 1])
    total = total + counts[slot]
  end
end
if #stale > 0 then redis.call('HDEL', KEYS[1], unpack(stale)) end
if not sorted then table.sort(live) end
local admitted = total < limit
if admitted then
  local slot = live[#live]
  local newest = slot == nil or slot < current
  if newest then
    slot = current
    live[#live + 1] = slot
    counts[slot] = 0
  end
  counts[slot] = counts[slot] + 1
  redis.call('HINCRBY', KEYS[1], string.format('%d', slot), 1)
  -- A new newest slot: the hash lives until it leaves the window (on the real clock only).
  if newest and not ARGV[4] then
    redis.call('PEXPIRE', KEYS[1], math.ceil(((slot + slots + 1) * g - now) / 1000))
  end
  total = total + 1
end
local function leaves(slot) return (slot + slots + 1) * g - now end
local retry = 0
if not admitted then
  retry = -1
  local excess, freed = total - limit + 1, 0
  if limit > 0 then
    for i = 1, #live do
      freed = freed + counts[live[i]]
      if freed >= excess then
        retry = leaves(live[i])
        break
      end
    end
  end
end
local reset = -1
if #live > 0 then reset = leaves(live[1]) end
local remaining = limit - total
if remaining < 0 then remaining = 0 end
return { admitted and 1 or 0, remaining, reset, retry, now }
`;
