// This module is browser compatible.
/**
 * The counting algorithm both stores run (docs/enforcement.md "The
 * guarantee"): a sliding window of {@link SLOTS} + 1 slots. The Redis store
 * runs the same steps in Lua (`redis/_check_and_count.ts`); the conformance
 * tests run both against one reference.
 *
 * A window of W microseconds is cut into slots of `g = ceil(W / SLOTS)`
 * microseconds, numbered from the clock's zero (`floor(t / g)`). A request
 * at time t, in slot `i`, is admitted when the requests counted in slots
 * `i - SLOTS` and later number fewer than the limit; it is then counted in
 * slot `i`. Those slots cover `[t - W, t]` and more, so no interval of W
 * holds more than `limit` admissions; they lie within `(t - W - g, t]`, so a
 * request is always admitted when fewer than `limit` were admitted in the
 * last `W + g`.
 *
 * @module
 */
import type { ThrottleCount } from "./types.ts";

/** Slots per window: the window is counted in SLOTS + 1 slots of `ceil(W / SLOTS)` µs. */
export const SLOTS = 20;

/** Limits above this count as this (the largest Integer of RFC 8941, 15 digits). */
export const MAX_LIMIT = 999_999_999_999_999;

/** Windows above this count as this: 100 years, so µs times stay exact in a double. */
export const MAX_WINDOW_SECONDS = 3_155_760_000;

/** The limit enforced for a descriptor's `limit`: whole requests, at most {@link MAX_LIMIT}. */
export function effectiveLimit(limit: number): number {
  return limit >= MAX_LIMIT ? MAX_LIMIT : limit > 0 ? Math.floor(limit) : 0;
}

/** The window enforced for `windowSeconds`, in whole µs (rounded up: never shorter). */
export function windowMicros(windowSeconds: number): number {
  const seconds = windowSeconds >= MAX_WINDOW_SECONDS ? MAX_WINDOW_SECONDS : windowSeconds;
  return seconds > 0 ? Math.max(1, Math.ceil(seconds * 1e6)) : 1;
}

/** One bucket's counts: slot numbers ascending, each with its count. */
export interface WindowState {
  slots: number[];
  counts: number[];
}

/**
 * Checks and counts one request at `now` (µs) in `state`, which it updates.
 * `limit` and `window` are already {@link effectiveLimit} and
 * {@link windowMicros}. A clock that steps back never uncounts: a request is
 * counted in the latest slot already used.
 */
export function countRequest(
  state: WindowState,
  now: number,
  limit: number,
  window: number,
): ThrottleCount {
  const { slots, counts } = state;
  const slotMicros = Math.ceil(window / SLOTS);
  const current = (now - now % slotMicros) / slotMicros;
  const oldest = current - SLOTS;
  let stale = 0;
  while (stale < slots.length && slots[stale]! < oldest) stale++;
  if (stale > 0) {
    slots.splice(0, stale);
    counts.splice(0, stale);
  }
  let total = 0;
  for (const count of counts) total += count;
  const admitted = total < limit;
  if (admitted) {
    const last = slots.length - 1;
    if (last >= 0 && slots[last]! >= current) counts[last]!++;
    else {
      slots.push(current);
      counts.push(1);
    }
    total++;
  }
  // A slot leaves the sum when the current slot passes it by SLOTS: at (slot + SLOTS + 1) g.
  const leaves = (slot: number) => (slot + SLOTS + 1) * slotMicros - now;
  let retryMicros = 0;
  if (!admitted) {
    retryMicros = -1;
    const excess = total - limit + 1;
    for (let i = 0, freed = 0; i < slots.length && limit > 0; i++) {
      freed += counts[i]!;
      if (freed >= excess) {
        retryMicros = leaves(slots[i]!);
        break;
      }
    }
  }
  return {
    admitted,
    remaining: Math.max(0, limit - total),
    resetMicros: slots.length > 0 ? leaves(slots[0]!) : -1,
    retryMicros,
    nowMicros: now,
  };
}
