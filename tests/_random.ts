/**
 * Seeded randomness for tests that draw inputs or timings, so that a failing
 * run can be replayed: every draw comes from {@link seededRandom}, whose seed
 * is the test's fixed default or `POLICY_TEST_SEED` (read only where the task
 * grants it, as `deno task test` and `test:long` do). A test puts the seed in
 * its failure messages with {@link replayHint}.
 *
 * @module
 */

/** A source of numbers in [0, 1) and the helpers built on it. */
export interface Random {
  /** The seed this source started from. */
  readonly seed: number;
  /** A number in [0, 1). */
  next(): number;
  /** A whole number in [0, n). */
  int(n: number): number;
  /** One of `items`. */
  pick<T>(items: readonly T[]): T;
  /** True with probability `p`. */
  chance(p: number): boolean;
}

/**
 * The seed to use: `POLICY_TEST_SEED` when set and readable, else
 * `fallback` (each test file picks its own, so runs are deterministic).
 */
export function testSeed(fallback: number): number {
  const permitted =
    Deno.permissions.querySync({ name: "env", variable: "POLICY_TEST_SEED" }).state === "granted";
  const value = permitted ? Deno.env.get("POLICY_TEST_SEED") : undefined;
  if (value === undefined || value === "") return fallback >>> 0;
  const seed = Number(value);
  if (!Number.isSafeInteger(seed)) throw new Error(`POLICY_TEST_SEED must be a whole number`);
  return seed >>> 0;
}

/** How to replay a run that used `seed`, for failure messages. */
export function replayHint(seed: number): string {
  return `seed ${seed}; replay with POLICY_TEST_SEED=${seed}`;
}

/** A deterministic source (mulberry32: 32 bits of state, full period, fast). */
export function seededRandom(seed: number): Random {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  return {
    seed: seed >>> 0,
    next,
    int,
    pick: <T>(items: readonly T[]): T => items[int(items.length)]!,
    chance: (p: number) => next() < p,
  };
}
