/**
 * How the hostile runners (`_corpus_runner.ts`, `_import_runner.ts`) time a
 * run and its yardstick (`_baseline.ts`): on two clocks at once, the wall
 * clock and the CPU time of the process (every thread, user and system).
 * Each can overstate the work of one run, in its own way: the wall clock
 * runs on while the machine runs something else (a CI runner with two
 * suites side by side stalls a load for longer than the load itself), and
 * CPU time adds what other threads do meanwhile (V8's parallel garbage
 * collection, busier after a large load than after `JSON.parse`). Neither
 * misses work the run does itself, so a run's {@link ratio} to its
 * yardstick is taken on the clock that overstates it less: a cost that
 * grows faster than the input shows on both.
 *
 * @module
 */
import process from "node:process";

/** Milliseconds on each clock. */
export interface Elapsed {
  wallMs: number;
  cpuMs: number;
}

/** What nothing is faster than, to start a {@link fastest} from. */
export const NOT_YET: Elapsed = { wallMs: Infinity, cpuMs: Infinity };

/** What everything is slower than, to start a {@link slowest} from. */
export const NOTHING: Elapsed = { wallMs: 0, cpuMs: 0 };

function cpuNow(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** Starts both clocks; the function returned reads how long since. */
export function startClocks(): () => Elapsed {
  const wall = performance.now();
  const cpu = cpuNow();
  return () => ({ wallMs: performance.now() - wall, cpuMs: cpuNow() - cpu });
}

/** The faster of two runs, clock by clock. */
export function fastest(a: Elapsed, b: Elapsed): Elapsed {
  return { wallMs: Math.min(a.wallMs, b.wallMs), cpuMs: Math.min(a.cpuMs, b.cpuMs) };
}

/** The slower of two costs, clock by clock (a floor made of several parts). */
export function slowest(a: Elapsed, b: Elapsed): Elapsed {
  return { wallMs: Math.max(a.wallMs, b.wallMs), cpuMs: Math.max(a.cpuMs, b.cpuMs) };
}

/** How many times `floor` a run took: the lower of the two clocks' ratios. */
export function ratio(run: Elapsed, floor: Elapsed): number {
  return Math.min(run.wallMs / floor.wallMs, run.cpuMs / floor.cpuMs);
}

/** For a failure message: both clocks. */
export function describeElapsed(e: Elapsed): string {
  return `${e.wallMs.toFixed(0)} ms (${e.cpuMs.toFixed(0)} ms of CPU)`;
}
