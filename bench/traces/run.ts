// deno task bench:traces [--rounds 5] [--no-write]
//
// What a trace's objects cost, and what building them lazily would cost
// before anything is read (docs/performance.md "Traces that explain
// conditions"): evaluate, traceEvaluation, and copying the objects of
// finished traces with literals (the same rule, leaf, group and candidate
// records from plain values: no lookup, no read, no comparison), on the
// three-rule and 50-rule scenarios at 10 targets; and the trace's top-level
// object as a literal against the same with `rules` an own accessor, the only
// hook a plain object offers. The copies are made from traces read back by
// JSON.parse, so that no object the benchmark keeps was made where traces
// make theirs (V8 would pretenure those sites and slow the traces down).
// Writes the block between the `traces` markers of docs/performance.md.
import { compileBundle, createEvaluator, type EvaluationRequest } from "../../mod.ts";
import { type ConditionTrace, traceEvaluation } from "../../src/engine/mod.ts";
import { QUERIES, scenarioById, scenarioRequests } from "../scenarios/mod.ts";
import { caseRatio, caseSpread, measureRounds } from "../_rounds.ts";
import { formatRatioSpread } from "../_stats.ts";
import { markdownTable } from "../_report.ts";
import { startInProcessRun } from "../_in_process_run.ts";

const run = startInProcessRun();
const SCENARIOS = ["3-rules", "50-rules"] as const;
const TARGETS = 10;

// deno-lint-ignore no-explicit-any
type Json = any;

/** A condition's trace, copied with literals. */
function copyCondition(t: Json): ConditionTrace | null {
  if (t === null) return null;
  switch (t.kind) {
    case "leaf":
      return {
        kind: "leaf",
        op: t.op,
        path: t.path,
        operand: t.operand,
        operandCount: t.operandCount,
        problem: t.problem,
        value: t.value,
        absent: t.absent,
        outcome: t.outcome,
      };
    case "not":
      return { kind: "not", condition: copyCondition(t.condition)!, outcome: t.outcome };
    case "invalid":
      return { kind: "invalid", op: t.op, problem: t.problem, outcome: false };
    default: {
      const conditions: ConditionTrace[] = new Array(t.conditions.length);
      for (let i = 0; i < conditions.length; i++) conditions[i] = copyCondition(t.conditions[i])!;
      return { kind: t.kind, conditions, outcome: t.outcome };
    }
  }
}

const copyCandidate = (c: Json) => ({
  policyKey: c.policyKey,
  ruleId: c.ruleId,
  decision: c.decision,
  priority: c.priority,
  reason: c.reason,
});

/** A finished trace's objects, copied with literals (`falseBecause` points into its condition). */
function copyTrace(t: Json): unknown {
  const rules = new Array(t.rules.length);
  for (let i = 0; i < rules.length; i++) {
    const r = t.rules[i];
    const condition = copyCondition(r.condition);
    const falseBecause = r.falseBecause === null ? null : condition;
    rules[i] = r.effect === undefined
      ? {
        policyKey: r.policyKey,
        ruleId: r.ruleId,
        priority: r.priority,
        outcome: r.outcome,
        condition,
        falseBecause,
      }
      : {
        policyKey: r.policyKey,
        ruleId: r.ruleId,
        priority: r.priority,
        outcome: r.outcome,
        effect: r.effect,
        condition,
        falseBecause,
      };
  }
  const candidates = new Array(t.candidates.length);
  for (let i = 0; i < candidates.length; i++) candidates[i] = copyCandidate(t.candidates[i]);
  const d = t.decision;
  return {
    decision: d.throttle === undefined
      ? { decision: d.decision, reason: d.reason, policyKey: d.policyKey, ruleId: d.ruleId }
      : {
        decision: d.decision,
        reason: d.reason,
        policyKey: d.policyKey,
        ruleId: d.ruleId,
        throttle: { ...d.throttle },
      },
    policiesSeen: t.policiesSeen.slice(),
    rulesSeen: t.rulesSeen,
    matchedCount: t.matchedCount,
    rules,
    candidates,
    selected: t.selected === null ? null : copyCandidate(t.selected),
  };
}

/** What a lazy trace's getter would make on first read (not timed: nothing reads it). */
function rulesOnRead(this: Record<string, unknown>): unknown {
  const rules: unknown[] = [];
  Object.defineProperty(this, "rules", {
    value: rules,
    writable: true,
    enumerable: true,
    configurable: true,
  });
  return rules;
}
const RULES_ON_READ = { get: rulesOnRead, enumerable: true, configurable: true };

const cases = SCENARIOS.flatMap((id) => {
  const scenario = scenarioById(id);
  const compiled = compileBundle(scenario.bundle(TARGETS));
  const evaluate = createEvaluator(compiled);
  const requests: EvaluationRequest[] = scenarioRequests(scenario, TARGETS);
  const traces = requests.map((r) => JSON.parse(JSON.stringify(traceEvaluation(compiled, r))));
  let q = 0;
  return [
    { name: `evaluate ${id}`, fn: () => evaluate(requests[q++ & (QUERIES - 1)]!) },
    { name: `trace ${id}`, fn: () => traceEvaluation(compiled, requests[q++ & (QUERIES - 1)]!) },
    { name: `objects ${id}`, fn: () => copyTrace(traces[q++ & (QUERIES - 1)]) },
  ];
});
let n = 0;
cases.push(
  {
    name: "literal",
    fn: () => ({
      decision: n++,
      policiesSeen: null,
      rulesSeen: 3,
      matchedCount: 1,
      rules: null,
      candidates: null,
      selected: null,
    }),
  },
  {
    name: "accessor",
    fn: () => {
      const trace = {
        decision: n++,
        policiesSeen: null,
        rulesSeen: 3,
        matchedCount: 1,
        candidates: null,
        selected: null,
      };
      return Object.defineProperty(trace, "rules", RULES_ON_READ);
    },
  },
);

const figures = await measureRounds(cases, { rounds: run.rounds });
const ns = (name: string) => (caseSpread(figures, name).median * 1e6).toFixed(0);
const times = (name: string, id: string) =>
  formatRatioSpread(caseRatio(figures, name, `evaluate ${id}`));
const row = (label: string, name: (id: string) => string) => [
  label,
  ...SCENARIOS.flatMap((id) => [ns(name(id)), times(name(id), id)]),
];
const table = markdownTable([
  ["Per call, 10 targets", ...SCENARIOS.flatMap((id) => [`${id}, ns`, "× evaluate"])],
  row("`evaluate`", (id) => `evaluate ${id}`),
  row("`traceEvaluation`", (id) => `trace ${id}`),
  row("the trace's objects, copied with literals", (id) => `objects ${id}`),
  [
    "the trace's top-level object, a literal",
    ns("literal"),
    times("literal", "3-rules"),
    "",
    "",
  ],
  [
    "the same, `rules` an own accessor (built when read)",
    ns("accessor"),
    times("accessor", "3-rules"),
    "",
    "",
  ],
]);
run.publish("traces", table, "2 ms batches");
