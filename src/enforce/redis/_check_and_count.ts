// This module is browser compatible.
/**
 * The Redis store's check-and-count: one Lua script, run atomically by the
 * server with the server's clock (`TIME`). It is `countRequest` of
 * `../sliding_window.ts`, step for step, over a hash per bucket that expires
 * when its newest slot leaves the window (docs/enforcement.md "Stores").
 *
 * Key layout 2: the hash `<prefix>v2:<bucket>` holds a summary field `s` —
 * the total counted, the oldest slot and its count, the newest slot and its
 * count: five integers packed as little-endian doubles (`struct.pack`;
 * exact, each is below 2^53) — and one field per older slot (slot number →
 * count). A check reads the summary (`HGET`) and, when it counts, writes it
 * back (`HSET`), with the previous newest slot's field when it opens a new
 * slot (then a `PEXPIRE`: the expiry moves with the newest slot). When the
 * oldest slot has left the window it reads the fields of the slots that
 * left and of the next one (`HMGET`: at most once per slot and bucket; the
 * summary's oldest slot is never more than `slots` before its newest, so
 * that list is bounded) and deletes those that left (`HDEL`). It reads
 * every field (`HGETALL`) only when a refusal under a lowered limit must
 * know more slots than the oldest to say when the next admission fits.
 * Layout 1 (`<prefix><bucket>`, slot fields only, read whole by every
 * check) cost Redis up to four times the time with many slots.
 *
 * @module
 */
import { toHex } from "../../_internal/encoding.ts";
import { describeValue } from "../../_internal/describe_value.ts";
import { PolicyError } from "../../public/policy_error.ts";
import { subtleCrypto } from "../../_internal/subtle_crypto.ts";
import { SLOTS } from "../sliding_window.ts";
import type { ThrottleCount } from "../types.ts";
import type { RedisCommands } from "./types.ts";

/**
 * The key layout this release reads and writes. A release with another
 * layout counts under other keys, so instances of two releases sharing a
 * Redis never read each other's hashes (docs/enforcement.md "Upgrading").
 */
export const LAYOUT_VERSION = 2;

/** The Redis key of `bucket` under `prefix`: `<prefix>v2:<bucket>`. */
export function bucketKey(prefix: string, bucket: string): string {
  return `${prefix}v${LAYOUT_VERSION}:${bucket}`;
}

/**
 * KEYS[1]: the bucket's hash. ARGV: limit, window (µs), slots per window,
 * and, for the conformance tests only, a time (µs) used instead of `TIME`.
 * Returns admitted (1/0), remaining, reset (µs), retry (µs), now (µs).
 * A key that holds something else than a bucket of layout 2 is an error.
 */
export const CHECK_AND_COUNT_SCRIPT = `
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
-- Slots that left the window: their fields go, their counts leave the total, and the oldest
-- slot still counted becomes the summary's first. Only the fields of those slots and of the next
-- one are read (one HMGET; a second, up to the newest slot, only when the next one has no field).
local changed, gone
if first ~= nil and first < oldest then
  changed = true
  if last < oldest then
    -- Every slot left the window: the bucket starts again.
    gone = true
    total, first, firstCount, last, lastCount = 0, nil, 0, nil, 0
  else
    -- Slots first .. oldest - 1 left (at most slots of them: last - first <= slots); the new
    -- oldest is the first slot with a field from oldest on, else the newest.
    local names = {}
    for slot = first, oldest do names[#names + 1] = string.format('%d', slot) end
    local values = redis.call('HMGET', key, unpack(names))
    local stale = {}
    for i = 1, #names - 1 do
      if values[i] then
        stale[#stale + 1] = names[i]
        total = total - tonumber(values[i])
      end
    end
    if #stale > 0 then redis.call('HDEL', key, unpack(stale)) end
    first, firstCount = nil, 0
    if oldest < last and values[#names] then
      first, firstCount = oldest, tonumber(values[#names])
    elseif oldest + 1 < last then
      names = {}
      for slot = oldest + 1, last - 1 do names[#names + 1] = string.format('%d', slot) end
      values = redis.call('HMGET', key, unpack(names))
      for i = 1, #names do
        if values[i] then
          first, firstCount = oldest + i, tonumber(values[i])
          break
        end
      end
    end
    if first == nil then first, firstCount = last, lastCount end
  end
end
-- Every slot, when a refusal under a lowered limit must know more than the oldest to say when the
-- next admission fits: live[i], ascending, and counts[slot].
local live, counts
if first ~= nil and limit > 0 and firstCount < total - limit + 1 then
  local flat = redis.call('HGETALL', key)
  live, counts = { last }, { [last] = lastCount }
  for i = 1, #flat, 2 do
    if flat[i] ~= 's' then
      local slot = tonumber(flat[i])
      live[#live + 1] = slot
      counts[slot] = tonumber(flat[i + 1])
    end
  end
  table.sort(live)
end
local admitted = total < limit
if admitted then
  total = total + 1
  local previous = last
  if last == nil then
    first, firstCount, last, lastCount = current, 1, current, 1
    if gone then redis.call('DEL', key) end
    redis.call('HSET', key, 's', struct.pack('<ddddd', total, first, firstCount, last, lastCount))
  elseif last < current then
    -- A new newest slot: the previous one gets its field.
    local previousCount = lastCount
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

let scriptSha: Promise<string> | undefined;

/** The SHA-1 Redis names the script by (`EVALSHA`). */
function sha(): Promise<string> {
  scriptSha ??= subtleCrypto().digest("SHA-1", new TextEncoder().encode(CHECK_AND_COUNT_SCRIPT))
    .then(toHex);
  return scriptSha;
}

/**
 * Runs the script for `key` with `EVALSHA`, and with `EVAL` (which loads
 * it) when the server does not have it yet (`NOSCRIPT`: first call, after a
 * restart, on a cluster node that has not run it). `now` (µs) replaces the
 * server clock: tests only.
 */
export async function checkAndCount(
  redis: RedisCommands,
  key: string,
  limit: number,
  window: number,
  now?: number,
): Promise<ThrottleCount> {
  const args = ["1", key, String(limit), String(window), String(SLOTS)];
  if (now !== undefined) args.push(String(now));
  let reply: unknown;
  // One key (never CROSSSLOT on a cluster), passed for routing: a cluster client sends both
  // commands to the master serving its slot, following MOVED and ASK. A node that lacks the
  // script (new, restarted, a promoted replica: scripts are not replicated) answers NOSCRIPT
  // without running anything, so the EVAL that loads it there counts the check once.
  try {
    reply = await redis.send(["EVALSHA", await sha(), ...args], key);
  } catch (error) {
    if (!(error instanceof Error && error.message.startsWith("NOSCRIPT"))) throw error;
    reply = await redis.send(["EVAL", CHECK_AND_COUNT_SCRIPT, ...args], key);
  }
  return parseCheckReply(reply, limit);
}

/** What the script's reply says, in order. */
const REPLY_FIELDS = ["admitted", "remaining", "reset", "retry", "now"] as const;

/**
 * The one reader of the script's reply: exactly five safe integers, with
 * the meanings and bounds of {@link ThrottleCount} for `limit`. Anything
 * else — another shape, a string, NaN, an infinity, a fraction, a count
 * out of range — is not a count of ours (a proxy or another server
 * answering, a script replaced on the server) and fails the check, so that
 * the enforcer applies `whenStoreFails` and calls `onError`, never admits
 * or refuses on a number it made up. The message describes what is wrong
 * without quoting the reply.
 *
 * @throws {PolicyError} `THROTTLE_STORE_UNAVAILABLE`.
 */
export function parseCheckReply(reply: unknown, limit: number): ThrottleCount {
  if (!Array.isArray(reply) || reply.length !== REPLY_FIELDS.length) {
    throw badReply(
      Array.isArray(reply)
        ? `an array of ${reply.length} elements instead of ${REPLY_FIELDS.length}`
        : `${describeValue(reply)} instead of an array of ${REPLY_FIELDS.length} integers`,
    );
  }
  for (const [i, value] of reply.entries()) {
    if (typeof value !== "number" || !Number.isSafeInteger(value)) {
      throw badReply(
        `its ${REPLY_FIELDS[i]} (element ${i + 1}) is ${
          typeof value === "number" ? value : describeValue(value)
        }, not an integer`,
      );
    }
  }
  const [admitted, remaining, resetMicros, retryMicros, nowMicros] = reply as number[] as [
    number,
    number,
    number,
    number,
    number,
  ];
  const wrong = contradiction(admitted, remaining, resetMicros, retryMicros, nowMicros, limit);
  if (wrong !== null) throw badReply(wrong);
  return { admitted: admitted === 1, remaining, resetMicros, retryMicros, nowMicros };
}

/** What in a reply of five integers contradicts {@link ThrottleCount} for `limit`, or null. */
function contradiction(
  admitted: number,
  remaining: number,
  reset: number,
  retry: number,
  now: number,
  limit: number,
): string | null {
  if (admitted !== 0 && admitted !== 1) return `its admitted is ${admitted}, not 0 or 1`;
  if (admitted === 1 && limit === 0) return "it admitted a request under a limit of 0";
  // Admitted: what is left after it; refused: nothing is left.
  const most = admitted === 1 ? limit - 1 : 0;
  if (remaining < 0 || remaining > most) return `its remaining is ${remaining}, not 0 to ${most}`;
  // -1: nothing counted, which an admitted request (counted) contradicts.
  if (reset < (admitted === 1 ? 0 : -1)) return `its reset is ${reset}`;
  // 0 when admitted; -1 (never) for a limit of 0 only; else the µs to wait.
  if (admitted === 1 ? retry !== 0 : limit === 0 ? retry !== -1 : retry < 0) {
    return `its retry is ${retry} for ${
      admitted === 1 ? "an admitted" : "a refused"
    } request under a limit of ${limit}`;
  }
  if (now < 0) return `its time is ${now}`;
  return null;
}

function badReply(what: string): PolicyError {
  return new PolicyError(
    "THROTTLE_STORE_UNAVAILABLE",
    `Redis answered the throttle check with a reply that is not the check-and-count script's: ${what}; check that the store's client talks to a Redis server and that nothing in between rewrites replies`,
  );
}
