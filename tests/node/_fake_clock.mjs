// A clock whose time moves only on tick(), for the library's `clock` options
// (monotonic `now()`, calendar `wallNow()`, timers), in the Node tests: the
// tests step time instead of sleeping on a timer of the library. The same
// behaviour as tests/_fake_clock.ts, which the Deno tests use (Node cannot
// import that file).

/** A manual clock: `tick(ms)` fires the timers that fall due, in order. */
export class FakeClock {
  #now = 1_000;
  #wall;
  #timers = new Map();
  #id = 0;
  #waiters = [];

  constructor({ wallNow = Date.UTC(2026, 10, 21, 9) } = {}) {
    this.#wall = wallNow;
  }

  now() {
    return this.#now;
  }

  wallNow() {
    return this.#wall + this.#now - 1_000;
  }

  setTimeout(callback, delayMs) {
    this.#timers.set(++this.#id, { at: this.#now + Math.max(0, delayMs), callback });
    const waiters = this.#waiters.splice(0);
    for (const wake of waiters) wake();
    return this.#id;
  }

  clearTimeout(id) {
    this.#timers.delete(id);
  }

  /** How many timers are pending. */
  get pending() {
    return this.#timers.size;
  }

  /** Resolves at the next setTimeout call (the code under test finished a cycle). */
  nextTimer() {
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  tick(ms) {
    const end = this.#now + ms;
    for (;;) {
      const [id, timer] = [...this.#timers].filter(([, t]) => t.at <= end)
        .sort(([a, x], [b, y]) => x.at - y.at || a - b)[0] ?? [];
      if (id === undefined) break;
      this.#timers.delete(id);
      this.#now = timer.at;
      timer.callback();
    }
    this.#now = end;
  }
}
