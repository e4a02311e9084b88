// This module is browser compatible.
// When the remote client polls next (docs/remote.md "Polling, backoff and jitter").
import { MAX_DELAY_MS } from "../_internal/check_options.ts";

/** Jitter of the regular interval: a success waits `intervalMs` ± 10 %. */
export const INTERVAL_JITTER = 0.1;

/** What decides the delay before the next poll. */
export interface PollDelayInput {
  /** Consecutive failed polls so far, the one just finished included (0 after a success). */
  failures: number;
  intervalMs: number;
  maxBackoffMs: number;
  /** The last failure was 401/403: poll at the backoff cap. */
  unauthorized: boolean;
  /** The server's `Retry-After`, in ms, or null. */
  retryAfterMs: number | null;
  /** A number in [0, 1), like `Math.random()`. */
  random: number;
}

/**
 * The delay, in whole milliseconds, before the next poll:
 *
 * - after a success: `intervalMs × (0.9 + 0.2 r)`, so within ±10 % of the interval (and at
 *   most 2^31 - 1 ms, the longest a timer waits);
 * - after the n-th consecutive failure: `base × (0.5 + 0.5 r)` ("equal jitter"), where
 *   `base = min(maxBackoffMs, intervalMs × 2^(n-1))`, or `base = maxBackoffMs` after a
 *   401/403; never more than `maxBackoffMs`;
 * - a `Retry-After` sets the earliest next poll (cut to `maxBackoffMs`, so a wrong
 *   header cannot stop updates).
 */
export function pollDelay(input: PollDelayInput): number {
  const { failures, intervalMs, maxBackoffMs, random } = input;
  if (failures === 0) {
    // The jitter may take an interval of up to MAX_DELAY_MS past it, where a timer fires at once.
    const jittered = Math.round(intervalMs * (1 - INTERVAL_JITTER + 2 * INTERVAL_JITTER * random));
    return Math.min(jittered, MAX_DELAY_MS);
  }
  const grown = intervalMs * 2 ** Math.min(failures - 1, 52);
  const base = input.unauthorized ? maxBackoffMs : Math.min(maxBackoffMs, grown);
  const delay = Math.round(base * (0.5 + 0.5 * random));
  const earliest = input.retryAfterMs === null ? 0 : Math.min(input.retryAfterMs, maxBackoffMs);
  return Math.max(delay, Math.round(earliest));
}

/**
 * Reads a `Retry-After` header: delay-seconds (`120`) or an HTTP date. Returns
 * the wait in ms from `nowMs` (0 for a date in the past), or null when absent
 * or unreadable.
 */
export function parseRetryAfter(value: string | null, nowMs: number): number | null {
  if (value === null) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // An HTTP date always names a weekday and a month; this keeps plain numbers
  // such as "1.5" or "-1" out of Date.parse.
  if (!/^[A-Za-z]{3,9},? /.test(text)) return null;
  // asctime() dates carry no zone; HTTP dates are always GMT.
  const at = Date.parse(/\d{4}$/.test(text) ? `${text} GMT` : text);
  return Number.isNaN(at) ? null : Math.max(0, at - nowMs);
}
