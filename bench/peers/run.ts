// deno task bench:peers [--scenarios 3-rules,50-rules] [--targets 10,1000]
//                       [--engines ours,cedar] [--rounds 5] [--measure-ms 1000]
//                       [--before .tmp/before [--only-before-after]] [--all]
//                       [--no-write]
// deno task bench:peers:node [same flags] (compiled by build_node.ts, run by node)
//
// The peer benchmark: each scenario of bench/scenarios/ in our engine (evaluate,
// traceEvaluation, a local client with a contextPolicy), in its straight-line
// floor and in each peer that expresses it (bench/peers/engines/), each engine,
// scenario and size measured in a fresh process. Writes
// bench/peers/results-<runtime>.json, docs/perf-chart.svg and the tables between
// the markers in docs/performance.md. Every engine, floors and peers alike, runs
// once in each of --rounds interleaved rounds; tables show the median over the
// rounds and the spread (docs/performance.md "Method"). With --before, a checkout of
// an earlier commit, that checkout's own engines (ours, ours-trace) run too, in the
// same rounds, as `ours@before`, `ours-trace@before`: before and after in one run
// (Deno only).
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import os from "node:os";
import { join, resolve } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { ENGINES } from "./engines/mod.ts";
import { expresses, type PeerEngine } from "./_engine.ts";
import { MEASURE_MS, type Measurement } from "./_measure.ts";
import { childCommand, runtimeInfo } from "./_runtime.ts";
import { renderChart } from "./_chart.ts";
import { methodLine, nsRounds, type PeerResult, renderTable } from "./report.ts";
import {
  PEER_TABLE_ENGINES,
  renderAims,
  renderBeforeAfter,
  renderScenarioTable,
} from "./_scenario_report.ts";
import { median, ratioSpread, spread } from "../_stats.ts";
import { formatPage, runCaption, startRun, writeDocBlocks } from "../_report.ts";
import { type Scenario, scenarioById, SCENARIOS, THREE_RULES } from "../scenarios/mod.ts";

/** Rounds of the tables: every engine once per round. */
const ROUNDS = 5;
/** The engines a --before checkout runs beside ours. */
const BEFORE_ENGINES: readonly string[] = ["ours", "ours-trace"];
const BEFORE = "@before";
const runtime = runtimeInfo();

/** `engine` as the --before checkout has it: measured by that checkout's child script. */
function beforeEngine(engine: PeerEngine): PeerEngine {
  return { ...engine, id: `${engine.id}${BEFORE}`, label: `${engine.label}, before` };
}

const { values: flags } = parseArgs({
  args: process.argv.slice(2),
  options: {
    scenarios: { type: "string", default: SCENARIOS.map((s) => s.id).join(",") },
    // Default: each scenario's own sizes.
    targets: { type: "string" },
    engines: { type: "string", default: ENGINES.map((e) => e.id).join(",") },
    all: { type: "boolean", default: false },
    "no-write": { type: "boolean", default: false },
    // Rounds: every engine runs once in each, in a fresh process (docs/performance.md "Method").
    rounds: { type: "string", default: String(ROUNDS) },
    // Timed batches per child after the warm-up, in ms (the tables: the default).
    "measure-ms": { type: "string", default: String(MEASURE_MS) },
    // The repository to write into: the compiled Node runner lives elsewhere.
    repo: { type: "string" },
    // A checkout of an earlier commit whose engines run beside ours, in the same rounds.
    before: { type: "string" },
    // Write the before-and-after block only (a partial run leaves the rest as it was).
    "only-before-after": { type: "boolean", default: false },
  },
});
const scenarios = flags.scenarios.split(",").map(scenarioById);
const rounds = Number(flags.rounds);
const measureMs = Number(flags["measure-ms"]);
if (!(Number.isSafeInteger(rounds) && rounds >= 1 && measureMs > 0)) {
  throw new Error("--rounds must be a whole number of at least 1, --measure-ms positive");
}
const only = flags.targets?.split(",").map(Number);
const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const repo = flags.repo === undefined ? here("../..") : resolve(flags.repo);
const childScript = here(`./child${import.meta.url.slice(import.meta.url.lastIndexOf("."))}`);
/** The child script of the --before checkout, which measures that checkout's engines. */
const beforeScript = flags.before === undefined
  ? undefined
  : join(resolve(flags.before), "bench", "peers", "child.ts");
if (beforeScript !== undefined && runtime.name !== "deno") {
  throw new Error("--before runs the checkout's TypeScript children: Deno only");
}
const engines = flags.engines.split(",").flatMap((id) => {
  const engine = ENGINES.find((e) => e.id === id);
  if (engine === undefined) throw new Error(`unknown engine ${id}`);
  return beforeScript !== undefined && BEFORE_ENGINES.includes(id)
    ? [engine, beforeEngine(engine)]
    : [engine];
});
const scratch = join(repo, ".tmp", "bench-peers");
const finishRun = startRun();

/** One engine at one scenario and size, measured in a fresh process. */
function runChild(engine: PeerEngine, scenario: Scenario, n: number): Measurement | string {
  const pair = `${engine.id} ${scenario.id} n=${n}`;
  const before = engine.id.endsWith(BEFORE);
  const [command, args] = childCommand(
    before ? beforeScript! : childScript,
    [engine.id.replace(BEFORE, ""), String(n), scenario.id, scratch, String(measureMs)],
    scratch,
  );
  const child = spawnSync(command, args, { encoding: "utf8", maxBuffer: 1 << 24 });
  const line = (child.stdout ?? "").trim().split("\n").at(-1) ?? "";
  if (child.status === 0 && line.startsWith("{")) {
    const m = { ...JSON.parse(line) as Measurement, engine: engine.id };
    console.error(
      `${pair}: load ${m.loadMs.toFixed(1)} ms, ${m.nsPerDecision.toFixed(0)} ns/decision ` +
        `(median batch ${m.nsPerDecisionMedian.toFixed(0)})`,
    );
    return m;
  }
  const how = child.error?.message ?? child.signal ?? `exit code ${child.status}`;
  const detail = `${how}: ${(child.stderr ?? "").trim().split("\n").slice(-3).join(" | ")}`;
  console.error(`${pair}: FAILED ${detail}`);
  return detail;
}

const results: PeerResult[] = [];
for (const scenario of scenarios) {
  const sizes = scenario.sizes.filter((n) => only === undefined || only.includes(n));
  for (const n of sizes) {
    const base = (engine: PeerEngine) => ({ engine: engine.id, scenario: scenario.id, targets: n });
    const runs = engines.filter((engine) => expresses(engine, scenario.id));
    const measured = new Map<string, Measurement[]>();
    const failed = new Map<string, string>();
    for (const engine of runs) {
      if (engine.maxTargets !== undefined && n > engine.maxTargets.targets && !flags.all) {
        const { reason } = engine.maxTargets;
        results.push({ ...base(engine), status: "skipped", detail: reason });
        console.error(`${engine.id} ${scenario.id} n=${n}: skipped (${reason})`);
      } else {
        measured.set(engine.id, []);
      }
    }
    // Rounds interleave the engines, each round starting one engine further along, so that
    // no engine always runs first or right after the same one.
    const timed = runs.filter((engine) => measured.has(engine.id));
    for (let round = 0; round < rounds; round++) {
      const turn = round % Math.max(1, timed.length);
      for (const engine of [...timed.slice(turn), ...timed.slice(0, turn)]) {
        if (failed.has(engine.id)) continue;
        const result = runChild(engine, scenario, n);
        if (typeof result === "string") failed.set(engine.id, result);
        else measured.get(engine.id)!.push(result);
      }
    }
    for (const engine of timed) {
      const detail = failed.get(engine.id);
      if (detail !== undefined) {
        results.push({ ...base(engine), status: "failed", detail });
        continue;
      }
      const ms = measured.get(engine.id)!;
      const ns = spread(ms.map((m) => m.nsPerDecision));
      results.push({
        ...base(engine),
        status: "ok",
        nsPerDecision: ns.median,
        nsSpread: ns,
        loadMs: median(ms.map((m) => m.loadMs)),
        opsPerSecond: 1e9 / ns.median,
        rounds: ms,
      });
    }
  }
}

// Ratios to our engine at the same scenario and size, round by round, from this run only.
for (const r of results) {
  const ours = results.find((o) =>
    o.engine === "ours" && o.scenario === r.scenario && o.targets === r.targets
  );
  const ratio = r.status === "ok" && ours?.status === "ok"
    ? ratioSpread(nsRounds(r), nsRounds(ours))
    : undefined;
  if (ratio !== undefined) r.ratioToOurs = ratio;
}

// The peer table and chart: the three-rule scenario, our evaluate against the peers.
const peerEngines = engines.filter((e) => PEER_TABLE_ENGINES.includes(e.id));
const peerResults = results.filter((r) =>
  r.scenario === THREE_RULES.id && PEER_TABLE_ENGINES.includes(r.engine)
);
const labels = new Map(peerEngines.map((e) => [e.id, e.label]));
const run = finishRun();
// Each block says how and when it was measured.
const captioned = (body: string) => `${methodLine(rounds)} ${runCaption(run)}\n\n${body}`;
const table = captioned(renderTable(peerResults, labels));
const scenarioTable = captioned(renderScenarioTable(results));
const aims = captioned(renderAims(results));
const beforeAfterBody = renderBeforeAfter(results);
const beforeAfter = beforeAfterBody === undefined ? undefined : captioned(beforeAfterBody);
console.log([table, scenarioTable, aims, beforeAfter ?? ""].join("\n\n"));
if (!flags["no-write"] && flags["only-before-after"]) {
  if (beforeAfter === undefined) throw new Error("--only-before-after needs --before");
  writeDocBlocks(repo, { [`before-after:${runtime.name}`]: beforeAfter });
} else if (!flags["no-write"]) {
  const report = {
    generatedBy: "bench/peers/run.ts",
    date: new Date().toISOString(),
    runtime,
    run,
    method: {
      rounds,
      measureMs,
      statistic: "each round: the fast decile of 2 ms batches, per decision; reported: the " +
        "median over the rounds, the lowest and highest round; ratios taken round by round",
    },
    machine: {
      cpu: os.cpus()[0]?.model ?? "?",
      cores: os.cpus().length,
      memoryGiB: Math.round(os.totalmem() / 2 ** 30),
      platform: `${process.platform}-${process.arch}`,
    },
    scenarios: scenarios.map(({ id, summary, rulesPerTarget, sizes, conditionsTested }) => ({
      id,
      summary,
      rulesPerTarget,
      sizes,
      conditionsTested,
    })),
    requests: "4,096 rotating requests spread over the targets, the scenario's contexts in turn",
    engines: engines.map(({ id, label, notes }) => ({ id, label, notes })),
    results,
  };
  writeFileSync(
    join(repo, "bench", "peers", `results-${runtime.name}.json`),
    JSON.stringify(report, null, 2) + "\n",
  );
  const title = `ns per decision, ${runtime.name} ${runtime.version} (log scale; lower is better)`;
  const sizes = [...new Set(peerResults.map((r) => r.targets))];
  const chart = join(
    repo,
    "docs",
    `${runtime.name === "deno" ? "perf-chart" : `perf-chart-${runtime.name}`}.svg`,
  );
  writeFileSync(chart, renderChart(peerResults, labels, sizes, title));
  formatPage(chart);
  writeDocBlocks(repo, {
    [`peers:${runtime.name}`]: table,
    [`scenarios:${runtime.name}`]: scenarioTable,
    [`engine-aims:${runtime.name}`]: aims,
    ...(beforeAfter === undefined ? {} : { [`before-after:${runtime.name}`]: beforeAfter }),
  });
}
