// This module is browser compatible.
/**
 * Watching a verified freshness statement's expiry on a clock: the one timer
 * both clients' bundle slot and the web OpenFeature provider arm for the
 * bundle in force (docs/operations.md "Signed freshness", "Clocks").
 * Internal: not re-exported.
 *
 * @module
 */
import type { Clock } from "../public/clock.ts";
import { expiryDeadline, type FreshnessStatus } from "./verify_freshness.ts";

/**
 * The longest the expiry timer waits before it reads the wall clock again:
 * a wall clock stepped forward past a statement's expiry is noticed within
 * this time.
 */
export const EXPIRY_RECHECK_MS = 60_000;

/**
 * Calls `onExpired` once the statement `freshness` has expired: at its
 * `expiresAt` plus `clockSkewMs` on the wall clock, and no later than the
 * time then left, counted on the monotonic clock (so a wall clock stepped
 * back does not extend it; one stepped forward is noticed within
 * {@link EXPIRY_RECHECK_MS}). One timer of `clock` is pending at a time;
 * `onExpired` may be called before this returns, when no time is left.
 * Returns the function that stops watching (idempotent).
 */
export function watchExpiry(
  freshness: FreshnessStatus,
  clockSkewMs: number,
  clock: Clock,
  onExpired: () => void,
): () => void {
  const wallDeadline = expiryDeadline(freshness, clockSkewMs);
  const monotonicDeadline = clock.now() + (wallDeadline - clock.wallNow());
  let timer: unknown = undefined;
  let stopped = false;
  const check = () => {
    timer = undefined;
    if (stopped) return;
    const left = Math.min(wallDeadline - clock.wallNow(), monotonicDeadline - clock.now());
    if (left > 0) {
      timer = clock.setTimeout(check, Math.min(left, EXPIRY_RECHECK_MS));
      return;
    }
    stopped = true;
    onExpired();
  };
  check();
  return () => {
    stopped = true;
    if (timer !== undefined) clock.clearTimeout(timer);
    timer = undefined;
  };
}
