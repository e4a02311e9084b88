// This module is browser compatible.
/**
 * The one clock of the library (docs/operations.md "Time"): every factory
 * that waits or reads the time takes a `clock` option of this shape, so that
 * tests step time instead of sleeping, and so that the two kinds of time are
 * never confused:
 *
 * - `now()` is monotonic: durations, deadlines, intervals and staleness are
 *   measured on it, and a wall clock stepped back or forward (NTP, a VM
 *   resumed, an operator) changes none of them;
 * - `wallNow()` is the calendar time: timestamps shown to people or written
 *   to disk, and comparisons with times from outside the process (a file's
 *   modification time), use it.
 *
 * @module
 */

/**
 * Time as the library sees it. The default is {@link SYSTEM_CLOCK}; tests
 * inject a fake one that moves only when told to.
 */
export interface Clock {
  /**
   * Monotonic milliseconds from an arbitrary origin (`performance.now()`):
   * only differences between two readings mean anything.
   */
  now(): number;
  /** Milliseconds since the Unix epoch (`Date.now()`): calendar time, which may jump. */
  wallNow(): number;
  /** Calls `callback` once after `ms` of {@link Clock.now}; returns a handle for {@link Clock.clearTimeout}. */
  setTimeout(callback: () => void, ms: number): unknown;
  /** Cancels a pending callback (a handle already fired or cleared is ignored). */
  clearTimeout(handle: unknown): void;
}

/** The system's clock: `performance.now()`, `Date.now()` and the global timers. */
export const SYSTEM_CLOCK: Clock = Object.freeze({
  now: () => performance.now(),
  wallNow: () => Date.now(),
  setTimeout: (callback: () => void, ms: number): unknown => setTimeout(callback, ms),
  clearTimeout: (handle: unknown) => clearTimeout(handle as ReturnType<typeof setTimeout>),
});

/**
 * Waits `ms` on `clock`: resolves after the time passes, or at once when
 * `signal` aborts (the timer is cleared).
 */
export function delay(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      signal?.removeEventListener("abort", done);
      clock.clearTimeout(handle);
      resolve();
    };
    const handle = clock.setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}
