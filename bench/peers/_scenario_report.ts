// The scenario table (our engine's three entry points against each
// scenario's floor and json-logic-js) and the engine's aims of
// docs/performance.md, computed from one run's results.
import type { PeerResult } from "./_report.ts";
import { formatCount, formatRatio } from "./_report.ts";
import { scenarioById } from "../scenarios/mod.ts";

/** The engines of the peer table: our evaluate against the peers (traces and clients have their own). */
export const PEER_TABLE_ENGINES: readonly string[] = [
  "floor",
  "ours",
  "json-logic",
  "json-rules-engine",
  "casbin",
  "cedar",
];

type Ns = (engine: string, scenario: string, n: number) => number | undefined;

function nsOf(results: PeerResult[]): Ns {
  return (engine, scenario, n) => {
    const r = results.find((r) =>
      r.engine === engine && r.scenario === scenario && r.targets === n && r.status === "ok"
    );
    return r?.nsPerDecision;
  };
}

/** The (scenario, size) pairs of the results, in the order they ran. */
function pairs(results: PeerResult[]): [string, number][] {
  const seen = new Map<string, [string, number]>();
  for (const r of results) seen.set(`${r.scenario} ${r.targets}`, [r.scenario, r.targets]);
  return [...seen.values()];
}

const cell = (ns: number | undefined) => ns === undefined ? "" : formatCount(ns);
const ratio = (a: number | undefined, b: number | undefined) =>
  a === undefined || b === undefined ? "" : formatRatio(a / b);

/** ns per decision of the floor, evaluate, traceEvaluation, the client and json-logic-js, with ratios. */
export function renderScenarioTable(results: PeerResult[]): string {
  const ns = nsOf(results);
  const rows = [
    "| scenario | targets | floor | evaluate | × floor | trace | × evaluate | client, contextPolicy | × evaluate | json-logic-js | × evaluate |",
    "| -------- | ------: | ----: | -------: | ------: | ----: | ---------: | --------------------: | ---------: | ------------: | ---------: |",
  ];
  for (const [scenario, n] of pairs(results)) {
    const [floor, ours, trace, client, logic] = [
      "floor",
      "ours",
      "ours-trace",
      "ours-client",
      "json-logic",
    ]
      .map((engine) => ns(engine, scenario, n));
    rows.push(
      `| ${scenario} | ${n.toLocaleString("en-US")} | ${cell(floor)} | ${cell(ours)} | ${
        ratio(ours, floor)
      } | ${cell(trace)} | ${ratio(trace, ours)} | ${cell(client)} | ${ratio(client, ours)} | ${
        cell(logic)
      } | ${ratio(logic, ours)} |`,
    );
  }
  return rows.join("\n");
}

/** The figures of one ratio at each size a scenario ran at, and whether each is within `limit`. */
function perSize(
  results: PeerResult[],
  scenario: string,
  of: (n: number) => number | undefined,
  limit: number,
): { text: string; met: boolean; any: boolean } {
  const sizes = [...new Set(results.filter((r) => r.scenario === scenario).map((r) => r.targets))];
  const figures = sizes.map((n) => ({ n, value: of(n) })).filter((f) => f.value !== undefined);
  return {
    text: figures.map((f) => `${formatRatio(f.value!)} (${f.n.toLocaleString("en-US")})`).join(
      ", ",
    ),
    met: figures.every((f) => f.value! <= limit),
    any: figures.length > 0,
  };
}

/** ns per rule condition tested: per decision, over the conditions tested to decide, on average. */
function perCondition(ns: number | undefined, scenario: string): number | undefined {
  if (ns === undefined) return undefined;
  const tested = scenarioById(scenario).conditionsTested;
  return ns / (tested.reduce((a, b) => a + b, 0) / tested.length);
}

/** The engine's aims (issue 20), each with its figures in this run (targets in brackets). */
export function renderAims(results: PeerResult[]): string {
  const ns = nsOf(results);
  const rows = [
    "| aim | figures in this run (targets) | met |",
    "| --- | ----------------------------- | --- |",
  ];
  const row = (aim: string, figures: { text: string; met: boolean; any: boolean }[]) => {
    const measured = figures.filter((f) => f.any);
    if (measured.length === 0) return;
    const met = measured.every((f) => f.met) ? "yes" : "no";
    rows.push(`| ${aim} | ${measured.map((f) => f.text).join("; ")} | ${met} |`);
  };
  const toFloor = (scenario: string) => (n: number) => {
    const [ours, floor] = [ns("ours", scenario, n), ns("floor", scenario, n)];
    return ours === undefined || floor === undefined ? undefined : ours / floor;
  };
  row("evaluate, nested paths, within 3× of its floor", [
    perSize(results, "3-rules-nested", toFloor("3-rules-nested"), 3),
  ]);
  row("evaluate, flat paths, within 2× of its floor", [
    perSize(results, "3-rules", toFloor("3-rules"), 2),
  ]);
  row("evaluate, `ctx.` paths, within 2× of its floor", [
    perSize(results, "3-rules-ctx", toFloor("3-rules-ctx"), 2),
  ]);
  const nestedPerCondition = (rules: number) => (n: number) => {
    const flat = perCondition(ns("ours", `${rules}-rules`, n), `${rules}-rules`);
    const nested = perCondition(ns("ours", `${rules}-rules-nested`, n), `${rules}-rules-nested`);
    return flat === undefined || nested === undefined ? undefined : nested / flat;
  };
  row("per condition tested, nested no more than 1.5× flat (50 rules; 500 rules)", [
    perSize(results, "50-rules", nestedPerCondition(50), 1.5),
    perSize(results, "500-rules", nestedPerCondition(500), 1.5),
  ]);
  const traceRatio = (scenario: string) => (n: number) => {
    const [trace, ours] = [ns("ours-trace", scenario, n), ns("ours", scenario, n)];
    return trace === undefined || ours === undefined ? undefined : trace / ours;
  };
  row("traceEvaluation within 5× of evaluate (3 rules; 50 rules; 500 rules)", [
    perSize(results, "3-rules", traceRatio("3-rules"), 5),
    perSize(results, "50-rules", traceRatio("50-rules"), 5),
    perSize(results, "500-rules", traceRatio("500-rules"), 5),
  ]);
  return rows.join("\n");
}
