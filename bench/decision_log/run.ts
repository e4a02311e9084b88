// deno task bench:decision-log [--rounds 5] [--no-write]
//
// What a client's evaluate costs over the engine's, with and without
// onDecision (docs/performance.md "Decision logs"): without the hook the
// client hands out the engine's evaluator itself, so the first two must be
// equal within noise. Writes the block between the `decision-log` markers of
// docs/performance.md.
import { compileBundle, createEvaluator } from "../../mod.ts";
import { memoryClients } from "../_memory_client.ts";
import { QUERIES, scenarioRequests, THREE_RULES } from "../scenarios/mod.ts";
import { caseRatio, caseSpread, measureRounds } from "../_rounds.ts";
import { formatRatioSpread } from "../_stats.ts";
import { markdownTable } from "../_report.ts";
import { startInProcessRun } from "../_in_process_run.ts";

const run = startInProcessRun();

const N = 1_000;
const bundle = THREE_RULES.bundle(N);
/** Remote clients fed from memory (no network): the same object a service holds. */
const client = await memoryClients(bundle);
// The same bundle with a freshness statement: its expiry swaps the evaluator, so this must equal plain.
const freshClient = await memoryClients(bundle, { freshness: true });

const requests = scenarioRequests(THREE_RULES, N);
const engine = createEvaluator(compileBundle(bundle));
let sink = 0;
const clients = {
  plain: await client(),
  fresh: await freshClient({ requireFreshness: true }),
  logged: await client({ onDecision: () => sink++ }),
  sampled: await client({ onDecision: () => sink++, decisionLog: { sampleRate: 0.01 } }),
  masked: await client({
    onDecision: () => sink++,
    decisionLog: { maskContextKeys: ["plan", "region"] },
  }),
};
let i = 0;
const next = () => requests[i++ & (QUERIES - 1)]!;
const ENGINE = "engine evaluator (baseline)";
const cases = [
  { name: ENGINE, fn: () => engine(next()) },
  { name: "client, no `onDecision`", fn: () => clients.plain.evaluate(next()) },
  {
    name: "client, a freshness statement in force (`requireFreshness`)",
    fn: () => clients.fresh.evaluate(next()),
  },
  {
    name: "client, `onDecision` on every decision (a no-op hook)",
    fn: () => clients.logged.evaluate(next()),
  },
  {
    name: "client, `onDecision`, `sampleRate: 0.01`",
    fn: () => clients.sampled.evaluate(next()),
  },
  {
    name: "client, `onDecision`, 2 masked context keys",
    fn: () => clients.masked.evaluate(next()),
  },
];
const figures = await measureRounds(cases, { rounds: run.rounds });
for (const c of Object.values(clients)) await c.close();

const table = markdownTable([
  [`\`evaluate\`, ${N.toLocaleString("en-US")} targets`, "ns per call", "× engine"],
  ...cases.map(({ name }) => [
    name,
    (caseSpread(figures, name).median * 1e6).toFixed(0),
    name === ENGINE ? "1×" : formatRatioSpread(caseRatio(figures, name, ENGINE)),
  ]),
]);
run.publish("decision-log", table, "2 ms batches");
