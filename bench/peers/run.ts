// deno task bench:peers [--targets 10,1000] [--engines ours,cedar] [--all] [--no-write]
// deno task bench:peers:node [same flags] (compiled by build_node.ts, run by node)
//
// The peer benchmark: the scenario of bench/_scenario.ts in our engine and in
// each peer (bench/peers/engines/), each engine and size measured in a fresh
// process. Writes bench/peers/results-<runtime>.json, docs/perf-chart.svg and
// the table between the markers in docs/performance.md.
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join, resolve } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { ENGINES } from "./engines/mod.ts";
import type { Measurement } from "./_measure.ts";
import { childCommand, runtimeInfo } from "./_runtime.ts";
import { renderChart } from "./_chart.ts";
import { type PeerResult, renderTable, replaceBetweenMarkers } from "./_report.ts";

const { values: flags } = parseArgs({
  args: process.argv.slice(2),
  options: {
    targets: { type: "string", default: "10,1000,100000" },
    engines: { type: "string", default: ENGINES.map((e) => e.id).join(",") },
    all: { type: "boolean", default: false },
    "no-write": { type: "boolean", default: false },
    // The repository to write into: the compiled Node runner lives elsewhere.
    repo: { type: "string" },
  },
});
const sizes = flags.targets.split(",").map(Number);
const engines = flags.engines.split(",").map((id) => {
  const engine = ENGINES.find((e) => e.id === id);
  if (engine === undefined) throw new Error(`unknown engine ${id}`);
  return engine;
});
const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const repo = flags.repo === undefined ? here("../..") : resolve(flags.repo);
const childScript = here(`./child${import.meta.url.slice(import.meta.url.lastIndexOf("."))}`);
const runtime = runtimeInfo();

const results: PeerResult[] = [];
for (const n of sizes) {
  for (const engine of engines) {
    if (engine.maxTargets !== undefined && n > engine.maxTargets.targets && !flags.all) {
      results.push({
        engine: engine.id,
        targets: n,
        status: "skipped",
        detail: engine.maxTargets.reason,
      });
      console.error(`${engine.id} n=${n}: skipped (${engine.maxTargets.reason})`);
      continue;
    }
    const [command, args] = childCommand(childScript, [engine.id, String(n)]);
    const child = spawnSync(command, args, { encoding: "utf8", maxBuffer: 1 << 24 });
    const line = (child.stdout ?? "").trim().split("\n").at(-1) ?? "";
    if (child.status === 0 && line.startsWith("{")) {
      const m = JSON.parse(line) as Measurement;
      results.push({ ...m, status: "ok" });
      console.error(
        `${engine.id} n=${n}: load ${m.loadMs.toFixed(1)} ms, ${
          m.nsPerDecision.toFixed(0)
        } ns/decision`,
      );
    } else {
      const how = child.error?.message ?? child.signal ?? `exit code ${child.status}`;
      const detail = `${how}: ${(child.stderr ?? "").trim().split("\n").slice(-3).join(" | ")}`;
      results.push({ engine: engine.id, targets: n, status: "failed", detail });
      console.error(`${engine.id} n=${n}: FAILED ${detail}`);
    }
  }
}

// Ratios to our engine at the same size, from this run only.
for (const r of results) {
  const ours = results.find((o) => o.engine === "ours" && o.targets === r.targets);
  if (r.status === "ok" && ours?.status === "ok") {
    r.ratioToOurs = r.nsPerDecision! / ours.nsPerDecision!;
    r.loadRatioToOurs = r.loadMs! / ours.loadMs!;
  }
}

const labels = new Map(engines.map((e) => [e.id, e.label]));
const table = renderTable(results, labels);
console.log(table);
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
    scenario: "bench/_scenario.ts: N targets x 3 rules (allow; deny when plan == free and " +
      "seats > 5; throttle when region in [eu, us]); 4,096 rotating requests",
    engines: engines.map(({ id, label, notes }) => ({ id, label, notes })),
    results,
  };
  writeFileSync(
    join(repo, "bench", "peers", `results-${runtime.name}.json`),
    JSON.stringify(report, null, 2) + "\n",
  );
  const title = `ns per decision, ${runtime.name} ${runtime.version} (log scale; lower is better)`;
  writeFileSync(
    join(
      repo,
      "docs",
      `${runtime.name === "deno" ? "perf-chart" : `perf-chart-${runtime.name}`}.svg`,
    ),
    renderChart(results, labels, sizes, title),
  );
  const docs = join(repo, "docs", "performance.md");
  const marker = `peers:${runtime.name}`;
  writeFileSync(docs, replaceBetweenMarkers(readFileSync(docs, "utf8"), marker, table));
}
