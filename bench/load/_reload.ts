// Evaluating while a reload runs. JavaScript runs one task at a time: evaluate
// calls arrive as tasks (here, a stream of MessageChannel messages, as requests
// reach a server), and they can only run while the load pipeline is waiting at
// an `await` that yields to the event loop. What a reload costs callers is the
// longest stretch of synchronous load work: no evaluate answers during it.
import { createEvaluator, type Evaluator, type LoadedBundle } from "../../mod.ts";
import { QUERIES, scenarioRequests, THREE_RULES } from "../scenarios/mod.ts";
import { median } from "../_stats.ts";

export interface ReloadFigures {
  /** Evaluate calls answered while the reload ran. */
  evaluatesDuringReload: number;
  /** How long the reload took, start to new bundle in force. */
  reloadMs: number;
  /** The longest time between two evaluate tasks during the reload, and without a reload. */
  worstGapMs: number;
  typicalGapMs: number;
  /** Time of one evaluate call (median over batches), without and during a reload. */
  evaluateNs: number;
  evaluateNsDuringReload: number;
}

const BATCH = 64; // evaluate calls per task, timed together

export async function measureReload(
  first: LoadedBundle,
  reload: () => Promise<Pick<LoadedBundle, "compiled">>,
  targets: number,
): Promise<ReloadFigures> {
  let evaluate: Evaluator = createEvaluator(first.compiled);
  const requests = scenarioRequests(THREE_RULES, targets);
  let q = 0;
  const sink: unknown[] = [];
  /** Runs evaluate tasks until `until` settles; returns each task's start time, gap and per-call time. */
  const stream = (until: Promise<unknown>) =>
    new Promise<{ at: number; gap: number; perCall: number }[]>((resolve) => {
      const channel = new MessageChannel();
      const tasks: { at: number; gap: number; perCall: number }[] = [];
      let settled = false;
      until.finally(() => settled = true);
      let last = performance.now();
      channel.port1.onmessage = () => {
        const at = performance.now();
        for (let k = 0; k < BATCH; k++) sink[k] = evaluate(requests[q++ & (QUERIES - 1)]!);
        const end = performance.now();
        tasks.push({ at, gap: at - last, perCall: ((end - at) / BATCH) * 1e6 });
        last = end;
        if (settled) {
          channel.port1.close();
          resolve(tasks);
        } else {
          channel.port2.postMessage(0);
        }
      };
      channel.port2.postMessage(0);
    });

  const quiet = await stream(new Promise((resolve) => setTimeout(resolve, 300)));
  // The reload starts while evaluate tasks are already flowing.
  let start = 0;
  const loading = new Promise<number>((resolve, reject) =>
    setTimeout(() => {
      start = performance.now();
      reload().then((loaded) => {
        evaluate = createEvaluator(loaded.compiled); // the swap: one assignment
        resolve(performance.now() - start);
      }, reject);
    }, 20)
  );
  const during = (await stream(loading)).filter((task) => task.at >= start);
  return {
    evaluatesDuringReload: during.length * BATCH,
    reloadMs: await loading,
    worstGapMs: Math.max(...during.map((task) => task.gap)),
    typicalGapMs: median(quiet.map((task) => task.gap)),
    evaluateNs: median(quiet.map((task) => task.perCall)),
    evaluateNsDuringReload: median(during.map((task) => task.perCall)),
  };
}
