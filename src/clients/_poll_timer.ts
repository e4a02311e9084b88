// This module is browser compatible.
// The remote client's one pending poll timer (docs/remote.md "Polling, backoff and jitter"),
// and its staleness timer while it has listeners (docs/remote.md "Events").
import type { Clock } from "../public/clock.ts";
import { MAX_DELAY_MS } from "../_internal/check_options.ts";

/** At most one pending timer on a `Clock`, and when it is due. */
export class PollTimer {
  readonly #clock: Clock;
  #timer: { handle: unknown } | null = null;
  #dueAt: number | null = null;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** When the pending timer fires, in ms since the epoch (wall clock), or null. */
  get dueAt(): number | null {
    return this.#dueAt;
  }

  /**
   * Replaces the pending timer by one that calls `fire` after `delayMs`, cut
   * to {@link MAX_DELAY_MS}: a longer delay (an interval near the limit,
   * jittered up) would make `setTimeout` fire at once, every millisecond.
   */
  schedule(delay: number, fire: () => void): void {
    const delayMs = Math.min(delay, MAX_DELAY_MS);
    this.cancel();
    this.#dueAt = this.#clock.wallNow() + delayMs;
    const timer = {
      handle: this.#clock.setTimeout(() => {
        if (this.#timer !== timer) return;
        this.#timer = null;
        this.#dueAt = null;
        fire();
      }, delayMs),
    };
    this.#timer = timer;
  }

  /** Cancels the pending timer, if any. */
  cancel(): void {
    if (this.#timer !== null) this.#clock.clearTimeout(this.#timer.handle);
    this.#timer = null;
    this.#dueAt = null;
  }
}
