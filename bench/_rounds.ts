// In-process measurements in rounds, for the benchmarks whose cases share one
// process (parse, decision logs, change safety): every case runs once in each
// interleaved round, each round starting one case further along; a round's
// figure is the fast decile of timed batches of at least 2 ms, per call, as
// the peer benchmark's children take it (bench/peers/_measure.ts). Tables
// then show the median over the rounds and the spread (bench/_stats.ts).
import { quantile, ratioSpread, type Spread, spread } from "./_stats.ts";

/** One case: a call to time; with `awaited`, each call's promise is awaited before the next. */
export interface Case {
  name: string;
  fn: () => unknown;
  awaited?: boolean;
}

/** How long each case runs in a round. */
export interface RoundOptions {
  rounds: number;
  /** Warm-up before the first round, per case, in ms. */
  warmupMs?: number;
  /** Timed batches per case and round, in ms (at least `minBatches` batches). */
  measureMs?: number;
  minBatches?: number;
}

/** Each case's ms per call, one figure per round, in round order. */
export type RoundFigures = Map<string, number[]>;

const BATCH_MS = 2;
const sink: unknown[] = new Array(64).fill(null);

function timeSyncBatch(fn: () => unknown, count: number): number {
  const start = performance.now();
  for (let i = 0; i < count; i++) sink[i & 63] = fn();
  return performance.now() - start;
}

async function timeAwaitedBatch(fn: () => unknown, count: number): Promise<number> {
  const start = performance.now();
  for (let i = 0; i < count; i++) sink[i & 63] = await fn();
  return performance.now() - start;
}

/** A batch of `count` calls of a case, timed in ms (a synchronous case is never awaited per call). */
function timeBatch({ fn, awaited }: Case, count: number): number | Promise<number> {
  return awaited ? timeAwaitedBatch(fn, count) : timeSyncBatch(fn, count);
}

/** Measures `cases` in interleaved rounds: ms per call, per case and round. */
export async function measureRounds(
  cases: readonly Case[],
  options: RoundOptions,
): Promise<RoundFigures> {
  const { rounds, warmupMs = 200, measureMs = 500, minBatches = 5 } = options;
  const batchSizes = new Map<string, number>();
  for (const c of cases) {
    let size = 1;
    while (await timeBatch(c, size) < BATCH_MS) size *= 2;
    const end = performance.now() + warmupMs;
    while (performance.now() < end) await timeBatch(c, size);
    batchSizes.set(c.name, size);
  }
  const figures: RoundFigures = new Map(cases.map(({ name }) => [name, []]));
  for (let round = 0; round < rounds; round++) {
    const turn = round % cases.length;
    for (const c of [...cases.slice(turn), ...cases.slice(0, turn)]) {
      const size = batchSizes.get(c.name)!;
      const times: number[] = [];
      const end = performance.now() + measureMs;
      while (performance.now() < end || times.length < minBatches) {
        times.push(await timeBatch(c, size));
      }
      figures.get(c.name)!.push(quantile(times, 0.1) / size);
    }
  }
  return figures;
}

/** The median and spread of a case's rounds. */
export function caseSpread(figures: RoundFigures, name: string): Spread {
  return spread(figures.get(name)!);
}

/** Case `a` over case `b`, round by round. */
export function caseRatio(figures: RoundFigures, a: string, b: string): Spread {
  return ratioSpread(figures.get(a)!, figures.get(b)!)!;
}
