/**
 * A manual {@link Clock} for the library's `clock` options (like the
 * standard library's `FakeTime`, but injected rather than installed over
 * the globals): time moves only when a test calls {@link FakeClock.tick},
 * which fires the due timers in order. The monotonic `now()` and the wall
 * clock `wallNow()` move together on `tick`, and the wall clock alone on
 * {@link FakeClock.stepWall}, so a test can step the calendar back or
 * forward the way NTP or an operator does. Deterministic, and it leaves no
 * real timer behind.
 *
 * @module
 */
import type { Clock } from "../src/public/clock.ts";

/** Where the clocks start. */
export interface FakeClockStart {
  /** The monotonic reading at start. Default 1,000 (any value works: only differences count). */
  now?: number;
  /** The wall clock at start, ms since the epoch. Default 2026-11-21T09:00:00Z (a whole second). */
  wallNow?: number;
}

interface Timer {
  at: number;
  seq: number;
  callback: () => void;
}

/** A clock whose time moves only on {@link FakeClock.tick}. */
export class FakeClock implements Clock {
  #now: number;
  #wall: number;
  #nextId = 1;
  readonly #timers = new Map<number, Timer>();
  #waiters: (() => void)[] = [];

  /** A clock at `start` (see {@link FakeClockStart}). */
  constructor(start: FakeClockStart = {}) {
    this.#now = start.now ?? 1_000;
    this.#wall = start.wallNow ?? Date.UTC(2026, 10, 21, 9, 0, 0);
  }

  now(): number {
    return this.#now;
  }

  wallNow(): number {
    return this.#wall;
  }

  setTimeout(callback: () => void, ms: number): number {
    const id = this.#nextId++;
    this.#timers.set(id, { at: this.#now + Math.max(0, ms), seq: id, callback });
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.#timers.delete(handle as number);
  }

  /** How many timers are pending. */
  get pending(): number {
    return this.#timers.size;
  }

  /** The delays from now of the pending timers, soonest first. */
  pendingDelays(): number[] {
    return [...this.#timers.values()].map((timer) => timer.at - this.#now).sort((a, b) => a - b);
  }

  /**
   * Resolves at the next call of `setTimeout` (the code under test scheduled
   * its next timer: a check, a poll or a flush finished). Event-driven: no
   * polling, no real time.
   */
  nextTimer(): Promise<void> {
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  /**
   * Moves both clocks forward by `ms`, firing every timer that falls due,
   * in order of due time (then of scheduling); each callback sees the clock
   * at its own due time.
   */
  tick(ms: number): void {
    if (!(ms >= 0)) throw new RangeError(`tick(${ms}): time only moves forward`);
    const end = this.#now + ms;
    for (;;) {
      let due: [number, Timer] | null = null;
      for (const entry of this.#timers) {
        const timer = entry[1];
        if (timer.at > end) continue;
        if (
          due === null || timer.at < due[1].at || (timer.at === due[1].at && timer.seq < due[1].seq)
        ) {
          due = entry;
        }
      }
      if (due === null) break;
      this.#timers.delete(due[0]);
      this.#advance(due[1].at);
      due[1].callback();
    }
    this.#advance(end);
  }

  /** Moves both clocks forward to the monotonic reading `ms` (see {@link FakeClock.tick}). */
  tickTo(ms: number): void {
    this.tick(ms - this.#now);
  }

  /** Fires the soonest pending timer (moving time to it); false when none is pending. */
  runNext(): boolean {
    const delays = this.pendingDelays();
    if (delays.length === 0) return false;
    this.tick(delays[0]!);
    return true;
  }

  /**
   * Fires timers one at a time, soonest first, until `condition` holds; after
   * each, waits until the code under test schedules its next timer (the work
   * the timer started is over). For code that re-arms a timer per cycle,
   * like the local client's watch. With no timer pending (a cycle is
   * running), waits for the next one. Fails after `maxTimers` timers.
   */
  async runUntil(condition: () => boolean, message: string, maxTimers = 100): Promise<void> {
    for (let fired = 0; !condition(); fired++) {
      if (fired === maxTimers) throw new Error(`not after ${maxTimers} timers: ${message}`);
      const next = this.nextTimer();
      this.runNext();
      await next;
    }
  }

  /** Moves the wall clock alone by `ms` (negative: back), as NTP or an operator does. */
  stepWall(ms: number): void {
    this.#wall += ms;
  }

  #advance(to: number): void {
    this.#wall += to - this.#now;
    this.#now = to;
  }
}
