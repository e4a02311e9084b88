/**
 * A manual clock for the remote client's `clock` option: time moves only
 * when a test calls {@link FakeClock.tick}, which fires the due timers in
 * order. Deterministic, and it leaves no real timer behind.
 *
 * @module
 */
import type { Clock } from "../../src/clients/create_remote_client.ts";

/** A clock whose time moves only on {@link FakeClock.tick}. */
export class FakeClock implements Clock {
  #now: number;
  #nextId = 1;
  readonly #timers = new Map<number, { at: number; callback: () => void }>();

  /** Starts at `start` (ms since the epoch; a whole second, so HTTP dates are exact). */
  constructor(start = Date.UTC(2026, 10, 21, 9, 0, 0)) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  setTimeout(callback: () => void, delayMs: number): number {
    const id = this.#nextId++;
    this.#timers.set(id, { at: this.#now + Math.max(0, delayMs), callback });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.#timers.delete(handle as number);
  }

  /** The delays from now of the pending timers, soonest first. */
  pendingDelays(): number[] {
    return [...this.#timers.values()].map((timer) => timer.at - this.#now).sort((a, b) => a - b);
  }

  /** Moves time forward by `ms`, firing every timer that falls due, in order. */
  tick(ms: number): void {
    const end = this.#now + ms;
    for (;;) {
      let dueId: number | null = null;
      let dueAt = Infinity;
      for (const [id, timer] of this.#timers) {
        if (timer.at <= end && timer.at < dueAt) {
          dueId = id;
          dueAt = timer.at;
        }
      }
      if (dueId === null) break;
      const timer = this.#timers.get(dueId)!;
      this.#timers.delete(dueId);
      this.#now = timer.at;
      timer.callback();
    }
    this.#now = end;
  }
}
