// deno task bench:peers [--scenarios 3-rules,50-rules] [--targets 10,1000]
//                       [--engines ours,cedar] [--rounds 3] [--all] [--no-write]
// deno task bench:peers:node [same flags] (compiled by build_node.ts, run by node)
//
// The peer benchmark: each scenario of bench/scenarios/ in our engine (evaluate,
// traceEvaluation, a local client with a contextPolicy), in its hand-written
// floor and in each peer that expresses it (bench/peers/engines/), each engine,
// scenario and size measured in a fresh process. Writes
// bench/peers/results-<runtime>.json, docs/perf-chart.svg and the tables between
// the markers in docs/performance.md.
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join, resolve } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { ENGINES } from "./engines/mod.ts";
import { expresses, type PeerEngine } from "./_engine.ts";
import type { Measurement } from "./_measure.ts";
import { childCommand, runtimeInfo } from "./_runtime.ts";
import { renderChart } from "./_chart.ts";
import { type PeerResult, renderTable, replaceBetweenMarkers } from "./_report.ts";
import { PEER_TABLE_ENGINES, renderAims, renderScenarioTable } from "./_scenario_report.ts";
import { type Scenario, scenarioById, SCENARIOS, THREE_RULES } from "../scenarios/mod.ts";

/**
 * The engines the engine's aims compare (our engine and the floors): run in
 * rounds, each keeping its fastest, so that a pair compared is not one quiet
 * and one busy moment of a shared machine. Peers run once.
 */
const REPEATED = new Set(["floor", "ours", "ours-trace", "ours-client"]);

const { values: flags } = parseArgs({
  args: process.argv.slice(2),
  options: {
    scenarios: { type: "string", default: SCENARIOS.map((s) => s.id).join(",") },
    // Default: each scenario's own sizes.
    targets: { type: "string" },
    engines: { type: "string", default: ENGINES.map((e) => e.id).join(",") },
    all: { type: "boolean", default: false },
    "no-write": { type: "boolean", default: false },
    // Rounds of our engine and the floors (peers run once): each keeps its fastest.
    rounds: { type: "string", default: "3" },
    // The repository to write into: the compiled Node runner lives elsewhere.
    repo: { type: "string" },
  },
});
const scenarios = flags.scenarios.split(",").map(scenarioById);
const rounds = Number(flags.rounds);
const only = flags.targets?.split(",").map(Number);
const engines = flags.engines.split(",").map((id) => {
  const engine = ENGINES.find((e) => e.id === id);
  if (engine === undefined) throw new Error(`unknown engine ${id}`);
  return engine;
});
const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const repo = flags.repo === undefined ? here("../..") : resolve(flags.repo);
const childScript = here(`./child${import.meta.url.slice(import.meta.url.lastIndexOf("."))}`);
const scratch = join(repo, ".tmp", "bench-peers");
const runtime = runtimeInfo();

/** One engine at one scenario and size, measured in a fresh process. */
function runChild(engine: PeerEngine, scenario: Scenario, n: number): PeerResult {
  const pair = `${engine.id} ${scenario.id} n=${n}`;
  const [command, args] = childCommand(
    childScript,
    [engine.id, String(n), scenario.id, scratch],
    scratch,
  );
  const child = spawnSync(command, args, { encoding: "utf8", maxBuffer: 1 << 24 });
  const line = (child.stdout ?? "").trim().split("\n").at(-1) ?? "";
  if (child.status === 0 && line.startsWith("{")) {
    const m = JSON.parse(line) as Measurement;
    console.error(
      `${pair}: load ${m.loadMs.toFixed(1)} ms, ${m.nsPerDecision.toFixed(0)} ns/decision ` +
        `(median batch ${m.nsPerDecisionMedian.toFixed(0)})`,
    );
    return { ...m, status: "ok" };
  }
  const how = child.error?.message ?? child.signal ?? `exit code ${child.status}`;
  const detail = `${how}: ${(child.stderr ?? "").trim().split("\n").slice(-3).join(" | ")}`;
  console.error(`${pair}: FAILED ${detail}`);
  return { engine: engine.id, scenario: scenario.id, targets: n, status: "failed", detail };
}

const results: PeerResult[] = [];
for (const scenario of scenarios) {
  const sizes = scenario.sizes.filter((n) => only === undefined || only.includes(n));
  for (const n of sizes) {
    const measured = new Map<string, PeerResult>();
    for (let round = 0; round < rounds; round++) {
      for (const engine of engines) {
        if (!expresses(engine, scenario.id)) continue;
        if (round > 0 && (!REPEATED.has(engine.id) || measured.get(engine.id)?.status !== "ok")) {
          continue;
        }
        if (engine.maxTargets !== undefined && n > engine.maxTargets.targets && !flags.all) {
          const { reason } = engine.maxTargets;
          const base = { engine: engine.id, scenario: scenario.id, targets: n };
          measured.set(engine.id, { ...base, status: "skipped", detail: reason });
          console.error(`${engine.id} ${scenario.id} n=${n}: skipped (${reason})`);
          continue;
        }
        const result = runChild(engine, scenario, n);
        const best = measured.get(engine.id);
        // Each round's engines run one after the other: keep each one's fastest round.
        if (best === undefined || result.nsPerDecision! < best.nsPerDecision!) {
          measured.set(engine.id, { ...result, rounds: round + 1 });
        } else {
          best.rounds = round + 1;
        }
      }
    }
    results.push(...measured.values());
  }
}

// Ratios to our engine at the same scenario and size, from this run only.
for (const r of results) {
  const ours = results.find((o) =>
    o.engine === "ours" && o.scenario === r.scenario && o.targets === r.targets
  );
  if (r.status === "ok" && ours?.status === "ok") {
    r.ratioToOurs = r.nsPerDecision! / ours.nsPerDecision!;
    r.loadRatioToOurs = r.loadMs! / ours.loadMs!;
  }
}

// The peer table and chart: the three-rule scenario, our evaluate against the peers.
const peerEngines = engines.filter((e) => PEER_TABLE_ENGINES.includes(e.id));
const peerResults = results.filter((r) =>
  r.scenario === THREE_RULES.id && PEER_TABLE_ENGINES.includes(r.engine)
);
const labels = new Map(peerEngines.map((e) => [e.id, e.label]));
const table = renderTable(peerResults, labels);
const scenarioTable = renderScenarioTable(results);
const aims = renderAims(results);
console.log([table, scenarioTable, aims].join("\n\n"));
if (!flags["no-write"]) {
  const report = {
    generatedBy: "bench/peers/run.ts",
    date: new Date().toISOString(),
    runtime,
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
  writeFileSync(
    join(
      repo,
      "docs",
      `${runtime.name === "deno" ? "perf-chart" : `perf-chart-${runtime.name}`}.svg`,
    ),
    renderChart(peerResults, labels, sizes, title),
  );
  const docs = join(repo, "docs", "performance.md");
  let text = readFileSync(docs, "utf8");
  text = replaceBetweenMarkers(text, `peers:${runtime.name}`, table);
  text = replaceBetweenMarkers(text, `scenarios:${runtime.name}`, scenarioTable);
  text = replaceBetweenMarkers(text, `engine-aims:${runtime.name}`, aims);
  writeFileSync(docs, text);
}
