// The scenario table (our engine's three entry points against each
// scenario's floor and json-logic-js) and the engine's aims of
// docs/performance.md, computed from one run's results: every ratio taken
// round by round, shown as its median with the lowest and highest round.
import { nsRounds, type PeerResult } from "./report.ts";
import { formatCount } from "../_report.ts";
import { formatRatioSpread, ratioSpread, type Spread } from "../_stats.ts";
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

/** A measured result's figures, or undefined. */
type Find = (engine: string, scenario: string, n: number) => PeerResult | undefined;

function finder(results: PeerResult[]): Find {
  return (engine, scenario, n) =>
    results.find((r) =>
      r.engine === engine && r.scenario === scenario && r.targets === n && r.status === "ok"
    );
}

/** The (scenario, size) pairs of the results, in the order they ran. */
function pairs(results: PeerResult[]): [string, number][] {
  const seen = new Map<string, [string, number]>();
  for (const r of results) seen.set(`${r.scenario} ${r.targets}`, [r.scenario, r.targets]);
  return [...seen.values()];
}

/** `a / b` round by round, when both were measured. */
function ratio(a: PeerResult | undefined, b: PeerResult | undefined): Spread | undefined {
  return a === undefined || b === undefined ? undefined : ratioSpread(nsRounds(a), nsRounds(b));
}

const cell = (r: PeerResult | undefined) => r === undefined ? "" : formatCount(r.nsPerDecision!);
const ratioCell = (s: Spread | undefined) => s === undefined ? "" : formatRatioSpread(s);

/** ns per decision of the floor, evaluate, traceEvaluation, the client and json-logic-js, with ratios. */
export function renderScenarioTable(results: PeerResult[]): string {
  const find = finder(results);
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
    ].map((engine) => find(engine, scenario, n));
    rows.push(
      `| ${scenario} | ${n.toLocaleString("en-US")} | ${cell(floor)} | ${cell(ours)} | ${
        ratioCell(ratio(ours, floor))
      } | ${cell(trace)} | ${ratioCell(ratio(trace, ours))} | ${cell(client)} | ${
        ratioCell(ratio(client, ours))
      } | ${cell(logic)} | ${ratioCell(ratio(logic, ours))} |`,
    );
  }
  return rows.join("\n");
}

/** One aim's figures for one scenario: a ratio per size, each checked against the aim. */
interface AimRow {
  aim: string;
  scenario: string;
  /** The scenario whose sizes the row reports. */
  sizesOf: string;
  against: string;
  /** The ratio at size n, round by round. */
  of: (n: number) => Spread | undefined;
  /** Whether a median meets the aim. */
  meets: (median: number) => boolean;
}

/** rounds × (ns per decision / conditions tested per decision, on average). */
function perCondition(r: PeerResult | undefined, scenario: string): number[] | undefined {
  if (r === undefined) return undefined;
  const tested = scenarioById(scenario).conditionsTested;
  const average = tested.reduce((a, b) => a + b, 0) / tested.length;
  return nsRounds(r).map((ns) => ns / average);
}

/**
 * The engine's aims (issues 20 and 30), each row one scenario: the figure at
 * each size (median over the rounds, lowest and highest round), the floor or
 * baseline it is measured against, and whether every median meets the aim.
 */
export function renderAims(results: PeerResult[]): string {
  const find = finder(results);
  const ids = [...new Set(results.map((r) => r.scenario))];
  const has = (id: string) => ids.includes(id);
  const within = (limit: number) => (m: number) => m <= limit;
  const toFloor = (scenario: string) => (n: number) =>
    ratio(find("ours", scenario, n), find("floor", scenario, n));
  const aims: AimRow[] = [];
  const floorAim = (scenario: string, limit: number, aim: string) =>
    has(scenario) && aims.push({
      aim,
      scenario,
      sizesOf: scenario,
      against: "its straight-line floor",
      of: toFloor(scenario),
      meets: within(limit),
    });
  floorAim("3-rules", 2, "evaluate within 2× of the floor (flat paths)");
  floorAim("3-rules-ctx", 2, "evaluate within 2× of the floor (`ctx.` paths)");
  floorAim("3-rules-nested", 3, "evaluate within 3× of the floor (nested paths)");
  for (const id of ["50-rules", "50-rules-nested"]) {
    floorAim(id, 3, "evaluate within 3× of the floor (50 rules)");
  }
  for (const id of ["500-rules", "500-rules-nested"]) {
    floorAim(id, 5, "evaluate within 5× of the floor (500 rules)");
  }
  for (const rules of [50, 500]) {
    const flat = `${rules}-rules`;
    const nested = `${rules}-rules-nested`;
    if (!has(flat) || !has(nested)) continue;
    aims.push({
      aim: "per condition tested, nested no more than 1.5× flat",
      scenario: `${nested} / ${flat}`,
      sizesOf: flat,
      against: "evaluate, flat paths",
      of: (n) => {
        const a = perCondition(find("ours", nested, n), nested);
        const b = perCondition(find("ours", flat, n), flat);
        return a === undefined || b === undefined ? undefined : ratioSpread(a, b);
      },
      meets: within(1.5),
    });
  }
  for (const scenario of ids) {
    aims.push({
      aim: "traceEvaluation within 3× of evaluate",
      scenario,
      sizesOf: scenario,
      against: "evaluate, same requests",
      of: (n) => ratio(find("ours-trace", scenario, n), find("ours", scenario, n)),
      meets: within(3),
    });
  }
  if (has("3-rules")) {
    aims.push({
      aim: "at least 10× faster than the fastest peer",
      scenario: "3-rules",
      sizesOf: "3-rules",
      against: "json-logic-js behind the same index (÷ evaluate)",
      of: (n) => ratio(find("json-logic", "3-rules", n), find("ours", "3-rules", n)),
      meets: (m) => m >= 10,
    });
  }
  const rows = [
    "| aim | scenario | measured against | figures (targets) | met |",
    "| --- | -------- | ---------------- | ----------------- | --- |",
  ];
  for (const row of aims) {
    const sizes = [
      ...new Set(results.filter((r) => r.scenario === row.sizesOf).map((r) => r.targets)),
    ];
    const figures = sizes.map((n) => ({ n, s: row.of(n) })).filter((f) => f.s !== undefined);
    if (figures.length === 0) continue;
    const text = figures.map((f) => `${formatRatioSpread(f.s!)} at ${f.n.toLocaleString("en-US")}`)
      .join("; ");
    const met = figures.every((f) => row.meets(f.s!.median)) ? "yes" : "no";
    rows.push(`| ${row.aim} | ${row.scenario} | ${row.against} | ${text} | ${met} |`);
  }
  return rows.join("\n");
}

/**
 * Before and after in one run (`--before`): per scenario and size, evaluate and
 * traceEvaluation of the earlier checkout and of this one, each ratio round by
 * round: after ÷ before, and each against its floor or its own evaluate.
 */
export function renderBeforeAfter(results: PeerResult[]): string | undefined {
  const find = finder(results);
  if (!results.some((r) => r.engine.endsWith("@before") && r.status === "ok")) return undefined;
  const rows = [
    "| scenario | targets | evaluate before | after | after ÷ before | × floor before | × floor after | trace before | after | after ÷ before | trace × evaluate before | after |",
    "| -------- | ------: | --------------: | ----: | -------------: | -------------: | ------------: | -----------: | ----: | -------------: | ----------------------: | ----: |",
  ];
  for (const [scenario, n] of pairs(results)) {
    const [floor, ours, oursBefore, trace, traceBefore] = [
      "floor",
      "ours",
      "ours@before",
      "ours-trace",
      "ours-trace@before",
    ].map((engine) => find(engine, scenario, n));
    rows.push(
      `| ${scenario} | ${n.toLocaleString("en-US")} | ${cell(oursBefore)} | ${cell(ours)} | ${
        ratioCell(ratio(ours, oursBefore))
      } | ${ratioCell(ratio(oursBefore, floor))} | ${ratioCell(ratio(ours, floor))} | ${
        cell(traceBefore)
      } | ${cell(trace)} | ${ratioCell(ratio(trace, traceBefore))} | ${
        ratioCell(ratio(traceBefore, oursBefore))
      } | ${ratioCell(ratio(trace, ours))} |`,
    );
  }
  return rows.join("\n");
}
