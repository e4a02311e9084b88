// Measures one engine at one scenario and size: load time, a correctness gate,
// then the time per decision over short timed batches (their fast decile, and
// the median). Runtime-neutral (Deno or Node).
import type { BenchDecision, BenchRequest, Decide, PeerEngine } from "./_engine.ts";
import { QUERIES, type Scenario, scenarioRequests } from "../scenarios/mod.ts";
import { median, quantile } from "../_stats.ts";

/** What one child process reports. */
export interface Measurement {
  engine: string;
  scenario: string;
  targets: number;
  /** Median of the loads made (one when a load takes over a second). */
  loadMs: number;
  loads: number;
  /** Requests checked against the expected decision before timing. */
  gateChecks: number;
  /** The fast decile of the batches, per decision: the figure of the tables. */
  nsPerDecision: number;
  /** The median batch, per decision: how much the machine's load moved the batches. */
  nsPerDecisionMedian: number;
  opsPerSecond: number;
  /** Decisions per timed batch, and the number of batches timed. */
  batchSize: number;
  batches: number;
}

/**
 * Batches are short and the figure is their fast decile: on a shared machine
 * most batches of a busy minute include time the process waited for a core,
 * which says nothing about the engine; a batch in the fastest tenth ran
 * without (or nearly without) such waits. The median is kept too.
 */
const BATCH_MS = 2;
const WARMUP_MS = 300;
/** Timed batches per measurement, after the warm-up, by default. */
export const MEASURE_MS = 1_000;
const MIN_BATCHES = 50;
const LOAD_BUDGET_MS = 1_000;
const MAX_LOADS = 5;

export async function measure(
  engine: PeerEngine,
  scenario: Scenario,
  n: number,
  scratch: string,
  measureMs = MEASURE_MS,
): Promise<Measurement> {
  const source = await engine.source(n, { scenario, scratch });
  const loadTimes: number[] = [];
  let decide: Decide;
  do {
    const start = performance.now();
    decide = await engine.load(source);
    loadTimes.push(performance.now() - start);
  } while (sum(loadTimes) < LOAD_BUDGET_MS && loadTimes.length < MAX_LOADS);

  const gateChecks = await checkDecisions(engine, scenario, decide, n);

  const requests = scenarioRequests(scenario, n);
  const run = engine.async ? timeAsyncBatch : timeBatch;
  let batchSize = 16;
  while ((await run(decide, requests, batchSize)) < BATCH_MS) batchSize *= 2;
  const warmupEnd = performance.now() + WARMUP_MS;
  while (performance.now() < warmupEnd) await run(decide, requests, batchSize);
  const times: number[] = [];
  const end = performance.now() + measureMs;
  while (performance.now() < end || times.length < MIN_BATCHES) {
    times.push(await run(decide, requests, batchSize));
  }
  const nsPerDecision = (quantile(times, 0.1) / batchSize) * 1e6;
  return {
    engine: engine.id,
    scenario: scenario.id,
    targets: n,
    loadMs: median(loadTimes),
    loads: loadTimes.length,
    gateChecks,
    nsPerDecision,
    nsPerDecisionMedian: (median(times) / batchSize) * 1e6,
    opsPerSecond: 1e9 / nsPerDecision,
    batchSize,
    batches: times.length,
  };
}

/**
 * The correctness gate: every context at up to 1,000 targets spread over the
 * scenario, and an unknown target, must give the expected decision.
 */
async function checkDecisions(
  engine: PeerEngine,
  scenario: Scenario,
  decide: Decide,
  n: number,
): Promise<number> {
  const step = Math.max(1, Math.floor(n / 1000));
  let checks = 0;
  const check = async (request: BenchRequest, want: string) => {
    const got = (await decide(request) as BenchDecision).decision;
    if (got !== want) {
      throw new Error(
        `${engine.id} ${scenario.id} n=${n}: ${JSON.stringify(request)} gave ${got}, ` +
          `expected ${want}`,
      );
    }
    checks++;
  };
  for (let i = 0; i < n; i += step) {
    for (let c = 0; c < scenario.contexts.length; c++) {
      await check(
        { target: scenario.target(i), context: scenario.contexts[c]! },
        scenario.expected[c]!,
      );
    }
  }
  const unknown = { service: "no-such-service", resource: "r", action: "read" };
  await check({ target: unknown, context: scenario.contexts[0]! }, "deny");
  return checks;
}

/** Decisions are kept here so that no engine's work can be optimised away. */
const sink: unknown[] = new Array(1024).fill(null);
/** Batches continue the rotation over the requests where the last one stopped. */
let cursor = 0;

function timeBatch(decide: Decide, requests: BenchRequest[], count: number): number {
  let q = cursor;
  const start = performance.now();
  for (let k = 0; k < count; k++) sink[k & 1023] = decide(requests[q++ & (QUERIES - 1)]!);
  const ms = performance.now() - start;
  cursor = q;
  return ms;
}

async function timeAsyncBatch(
  decide: Decide,
  requests: BenchRequest[],
  count: number,
): Promise<number> {
  let q = cursor;
  const start = performance.now();
  for (let k = 0; k < count; k++) sink[k & 1023] = await decide(requests[q++ & (QUERIES - 1)]!);
  const ms = performance.now() - start;
  cursor = q;
  return ms;
}

function sum(values: number[]): number {
  return values.reduce((a, b) => a + b, 0);
}
