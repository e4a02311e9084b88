// deno task bench:aims [--no-write]
//
// The table "Against the aims" of docs/performance.md, from the results the
// other benchmarks wrote (bench/peers/results-{deno,node}.json,
// bench/load/results-deno.json, bench/enforce/results-deno.json): each aim
// with its figure, what it is measured against, the rounds and their spread,
// and whether it is met. `deno task bench:all` runs it last; it measures
// nothing itself, so it can never disagree with the tables it summarises.
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import type { PeerResult } from "./peers/report.ts";
import { formatRatio, formatRatioSpread, ratioSpread, type Spread } from "./_stats.ts";
import { markdownTable, writeDocBlock } from "./_report.ts";

const { values: flags } = parseArgs({
  args: Deno.args,
  options: { "no-write": { type: "boolean" } },
});
const repo = fileURLToPath(new URL("..", import.meta.url));

/** A results file, or undefined when that benchmark has not run. */
function results<T>(path: string): T | undefined {
  const file = `${repo}/${path}`;
  return existsSync(file) ? JSON.parse(readFileSync(file, "utf8")) as T : undefined;
}

interface PeerReport {
  date: string;
  method?: { rounds: number };
  results: PeerResult[];
}

type Row = [aim: string, against: string, figure: string, spread: string, met: string];
const rows: Row[] = [];
const NOT_RUN = (task: string): [string, string, string] => ["not measured", `run ${task}`, "—"];

const nsRounds = (r: PeerResult) => (r.rounds ?? []).map((m) => m.nsPerDecision);
const find = (report: PeerReport, engine: string, scenario: string, n: number) =>
  report.results.find((r) =>
    r.engine === engine && r.scenario === scenario && r.targets === n && r.status === "ok" &&
    Array.isArray(r.rounds) // results of this method
  );
/** Every (runtime, scenario, size) figure of `a / b`, in the reports given. */
function peerRatios(
  reports: [string, PeerReport | undefined][],
  scenarios: string[],
  a: string,
  b: string,
): { where: string; s: Spread }[] {
  const out: { where: string; s: Spread }[] = [];
  for (const [runtime, report] of reports) {
    if (report === undefined) continue;
    for (const scenario of scenarios) {
      const sizes = report.results.filter((r) => r.scenario === scenario).map((r) => r.targets);
      for (const n of new Set(sizes)) {
        const [x, y] = [find(report, a, scenario, n), find(report, b, scenario, n)];
        const s = x && y ? ratioSpread(nsRounds(x), nsRounds(y)) : undefined;
        if (s) out.push({ where: `${runtime} ${scenario} at ${n.toLocaleString("en-US")}`, s });
      }
    }
  }
  return out;
}

/** A row from many figures: the worst median (and where), every figure's range. */
function summaryRow(
  aim: string,
  against: string,
  figures: { where: string; s: Spread }[],
  meets: (median: number) => boolean,
  worst: "max" | "min",
  task: string,
): Row {
  if (figures.length === 0) return [aim, against, ...NOT_RUN(task)];
  const sorted = [...figures].sort((x, y) => x.s.median - y.s.median);
  const pick = worst === "max" ? sorted.at(-1)! : sorted[0]!;
  const lowest = Math.min(...figures.map((f) => f.s.min));
  const highest = Math.max(...figures.map((f) => f.s.max));
  const rounds = [...new Set(figures.map((f) => f.s.rounds))].join(", ");
  const failing = figures.filter((f) => !meets(f.s.median)).length;
  return [
    aim,
    against,
    `${worst === "max" ? "worst" : "lowest"}: ${formatRatioSpread(pick.s)} (${pick.where})`,
    `${figures.length} figures, ${rounds} rounds each; rounds range ${formatRatio(lowest)}–${
      formatRatio(highest)
    }`,
    failing === 0 ? "yes" : `no (${failing} of ${figures.length})`,
  ];
}

const deno = results<PeerReport>("bench/peers/results-deno.json");
const node = results<PeerReport>("bench/peers/results-node.json");
const peers: [string, PeerReport | undefined][] = [["Deno", deno], ["Node", node]];
const peersTask = "`bench:peers` and `bench:peers:node`";

rows.push(summaryRow(
  "evaluate within 3× of the floor, flat from 10 to 100,000 targets (3 rules)",
  "straight-line floor: nested `Map` + inline compares",
  peerRatios(peers, ["3-rules"], "ours", "floor"),
  (m) => m <= 3,
  "max",
  peersTask,
));
rows.push(summaryRow(
  "at least 10× faster per decision than the fastest peer",
  "json-logic-js behind the same index (its ns ÷ ours)",
  peerRatios(peers, ["3-rules"], "json-logic", "ours"),
  (m) => m >= 10,
  "min",
  peersTask,
));
rows.push(summaryRow(
  "wide targets within 3× of the floor (50 rules)",
  "generated straight-line floor",
  peerRatios(peers, ["50-rules", "50-rules-nested"], "ours", "floor"),
  (m) => m <= 3,
  "max",
  peersTask,
));
rows.push(summaryRow(
  "wide targets within 5× of the floor (500 rules)",
  "generated straight-line floor",
  peerRatios(peers, ["500-rules", "500-rules-nested"], "ours", "floor"),
  (m) => m <= 5,
  "max",
  peersTask,
));
const allScenarios = [...new Set((deno ?? node)?.results.map((r) => r.scenario) ?? [])];
rows.push(summaryRow(
  "traces within 3× of `evaluate`, every scenario and size, both runtimes",
  "`evaluate` on the same requests",
  peerRatios(peers, allScenarios, "ours-trace", "ours"),
  (m) => m <= 3,
  "max",
  peersTask,
));

// Load, memory, reload and start-up: bench/load.
interface LoadReport {
  bundle: { bytes: number };
  load: {
    floorMs?: number;
    loadBundleMs: number;
    ratio?: number;
    ratioRange?: [number, number];
    /** Each case of the load table with its ms, one per round. */
    rounds?: { name: string; ms: number[] }[];
    gcBeforeEachRun?: boolean;
  };
  memory: { load: { heapUsedDelta: number } };
  reload: { loadBundle: { evaluateNs: number; evaluateNsDuringReload: number } };
  startup: Record<string, { ms: number; ratio: number; quartilesMs: [number, number] }>;
}
const load = results<LoadReport>("bench/load/results-deno.json");
const loadTask = "`bench:load`";
if (load?.load.ratio !== undefined && load.load.ratioRange !== undefined) {
  const [low, high] = load.load.ratioRange;
  rows.push([
    "load within 3× of `decode + JSON.parse + SHA-256` of the bytes, end to end",
    `decode + \`JSON.parse\` + SHA-256 (${load.load.floorMs!.toFixed(0)} ms)`,
    `${formatRatio(load.load.ratio)} (${load.load.loadBundleMs.toFixed(0)} ms)`,
    `${load.load.rounds?.[0]?.ms.length ?? "?"} rounds${
      load.load.gcBeforeEachRun ? ", full GC before each run" : ""
    }; ${formatRatio(low).slice(0, -1)}–${formatRatio(high)}`,
    load.load.ratio <= 3 ? "yes" : "no",
  ]);
} else {
  rows.push([
    "load within 3× of `decode + JSON.parse + SHA-256` of the bytes, end to end",
    "decode + `JSON.parse` + SHA-256",
    ...NOT_RUN(loadTask),
  ]);
}
if (load !== undefined) {
  const heap = load.memory.load.heapUsedDelta / load.bundle.bytes;
  rows.push([
    "retained heap ≤ 1× the file size",
    `the file (${(load.bundle.bytes / 2 ** 20).toFixed(1)} MiB)`,
    `${heap.toFixed(2)}×`,
    "one fresh process, after a full GC",
    heap <= 1 ? "yes" : "no",
  ]);
  const { evaluateNs, evaluateNsDuringReload } = load.reload.loadBundle;
  const slower = evaluateNsDuringReload / evaluateNs;
  rows.push([
    "no `evaluate` call slower than 10× the median while a reload is in progress",
    `\`evaluate\` without a reload (${evaluateNs.toFixed(0)} ns)`,
    `${formatRatio(slower)} (${evaluateNsDuringReload.toFixed(0)} ns, batches of 64 calls)`,
    "median of 5 rounds",
    slower <= 10 ? "yes" : "no",
  ]);
  for (const [runtime, limit] of [["deno", 2], ["node", 1.5]] as const) {
    const entry = Object.entries(load.startup).find(([name]) =>
      name.startsWith(runtime) && name.includes("simulate")
    );
    if (entry === undefined) continue;
    const figure = entry[1];
    rows.push([
      `start-up of \`policy simulate\` within ${limit}× of an empty script (${
        runtime === "deno" ? "Deno" : "Node"
      })`,
      `${runtime} of an empty script`,
      `${formatRatio(figure.ratio)} (${figure.ms.toFixed(0)} ms)`,
      `median of the runs; middle half ${figure.quartilesMs.map((q) => q.toFixed(0)).join("–")} ms`,
      figure.ratio <= limit ? "yes" : "no",
    ]);
  }
}

// The Redis store: bench/enforce.
interface EnforceReport {
  serverTime?: { workload: string; ratio: Spread }[];
}
const enforce = results<EnforceReport>("bench/enforce/results-deno.json");
rows.push(summaryRow(
  "Redis server time per check within 1.25× of rate-limiter-flexible's",
  "rate-limiter-flexible's fixed window, same server (`INFO commandstats`)",
  (enforce?.serverTime ?? []).map((r) => ({ where: r.workload, s: r.ratio })),
  (m) => m <= 1.25,
  "max",
  "`bench:enforce`",
));

const table = markdownTable([
  ["Aim", "Measured against", "Figure (median)", "Rounds and spread", "Met"],
  ...rows,
], 5);
const dates = [deno, node].filter((r) => r !== undefined).map((r) => r!.date.slice(0, 10));
const block = "Summarised by `bench/aims.ts` from the results of the last runs" +
  (dates.length > 0 ? ` (peer benchmark: ${[...new Set(dates)].join(", ")})` : "") +
  "; each figure is taken from its table below.\n\n" + table;
console.log(block);
if (!flags["no-write"]) writeDocBlock(repo, "aims", block);
