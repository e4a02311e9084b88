// deno task bench:rollout [--rounds 5] [--no-write]
//
// What a `rollout` decision costs (docs/performance.md "Rollouts"): the engine's `evaluate` at
// 1,000 targets, each with one rollout rule on `userId` and a deny default, against the floor
// of bench/rollout/rollout_scenario.ts, straight-line code doing the same work (the request
// checked, the target looked up, an own-property read, UTF-8 encoding, MurmurHash3, the
// comparison, the decision). The aim is at most 2× the floor. Also, for scale, the three-rule
// scenario's `evaluate` and floor (which `bench:peers` measures in fresh processes): the
// operators must not move it. Writes the block between the `rollout` markers of
// docs/performance.md.
import { compileBundle, createEvaluator } from "../../mod.ts";
import { rolloutBundle, rolloutFloor, rolloutRequests } from "./rollout_scenario.ts";
import { QUERIES, scenarioRequests, THREE_RULES } from "../scenarios/mod.ts";
import { caseRatio, caseSpread, measureRounds } from "../_rounds.ts";
import { formatRatioSpread } from "../_stats.ts";
import { markdownTable } from "../_report.ts";
import { startInProcessRun } from "../_in_process_run.ts";

const run = startInProcessRun();

const N = 1_000;
const evaluate = createEvaluator(compileBundle(rolloutBundle(N)));
const floor = rolloutFloor(N);
const requests = rolloutRequests(N, QUERIES);
for (const request of requests) {
  if (JSON.stringify(floor(request)) !== JSON.stringify(evaluate(request))) {
    throw new Error(`the floor and the engine disagree on ${JSON.stringify(request)}`);
  }
}
const threeRules = createEvaluator(compileBundle(THREE_RULES.bundle(N)));
const threeRulesFloor = THREE_RULES.floor(N);
const threeRulesRequests = scenarioRequests(THREE_RULES, N);

let i = 0;
const FLOOR = "floor: own property, UTF-8, murmur3, compare (baseline)";
const EVALUATE = "`evaluate`, a `rollout` rule";
const THREE_FLOOR = "3-rules floor (for scale)";
const THREE_EVALUATE = "3-rules `evaluate` (for scale)";
const cases = [
  { name: FLOOR, fn: () => floor(requests[i++ & (QUERIES - 1)]!) },
  { name: EVALUATE, fn: () => evaluate(requests[i++ & (QUERIES - 1)]!) },
  { name: THREE_FLOOR, fn: () => threeRulesFloor(threeRulesRequests[i++ & (QUERIES - 1)]!) },
  { name: THREE_EVALUATE, fn: () => threeRules(threeRulesRequests[i++ & (QUERIES - 1)]!) },
];
const figures = await measureRounds(cases, { rounds: run.rounds });

const table = markdownTable([
  [`per decision, ${N.toLocaleString("en-US")} targets`, "ns per call", "× its floor"],
  ...cases.map(({ name }) => [
    name,
    (caseSpread(figures, name).median * 1e6).toFixed(0),
    name === FLOOR || name === THREE_FLOOR ? "1×" : formatRatioSpread(
      caseRatio(figures, name, name === EVALUATE ? FLOOR : THREE_FLOOR),
    ),
  ]),
]);
run.publish("rollout", table, "2 ms batches");
