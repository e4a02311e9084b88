// deno task bench:load [--no-write] [--load-only]
//
// Load, reload, memory and start-up of our engine under Deno, with an ~8 MiB
// ECDSA-signed bundle (the default maxFileBytes). Writes
// bench/load/results-deno.json and the block between the markers in
// docs/performance.md. Run with --v8-flags=--expose-gc (the task does): each
// timed load starts after a full collection. --load-only measures the load
// and memory and prints them, nothing else (no file is written).
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { loadBundle } from "../../mod.ts";
import { replaceBetweenMarkers } from "../peers/_report.ts";
import { makeSignedBundle } from "./_signed_bundle.ts";
import { type StageTimes, timeStages } from "./_stages.ts";
import { fullGc, measureEndToEnd } from "./_end_to_end.ts";
import { measureReload, type ReloadFigures } from "./_reload.ts";
import { unyieldingLoad } from "./_unyielding_load.ts";
import { measureStartup, prepareStartup } from "./_startup.ts";
import { median } from "../_stats.ts";

const ROUNDS = 9;

/** How the stage table names the stages. */
const STAGE_NAMES: Record<keyof StageTimes, string> = {
  decode: "UTF-8 decode",
  parse: "`parseJson`",
  walk: "validate and collect the rules (one walk)",
  canonical: "canonical payload",
  sha256: "SHA-256 of the payload",
  signature: "ECDSA verification",
  programs: "targets' programs and index",
};
const f = (ms: number) => ms.toFixed(ms < 10 ? 1 : 0);
const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const MiB = 1024 * 1024;

const bundle = await makeSignedBundle();
const mib = bundle.bytes.byteLength / MiB;
console.error(`bundle: ${mib.toFixed(2)} MiB, ${bundle.targets} targets, ECDSA-signed`);

// 1. Load end to end against its floor (decode + JSON.parse + SHA-256 of the bytes), rounds
// interleaved, a full GC before each run; then the stages, back to back, after a full GC.
if (fullGc === undefined) throw new Error("run with --v8-flags=--expose-gc");
const endToEnd = await measureEndToEnd(bundle.bytes, bundle.options, ROUNDS);
const unordered = await measureEndToEnd(bundle.unorderedBytes, bundle.options, ROUNDS);
const stages: StageTimes[] = [];
for (let round = 0; round < ROUNDS; round++) {
  fullGc();
  stages.push(await timeStages(bundle.bytes, bundle.options));
}
const stage = Object.fromEntries(
  Object.keys(stages[0]!).map((k) => [k, median(stages.map((s) => s[k as keyof StageTimes]))]),
) as unknown as StageTimes;
const range = (r: [number, number]) => `${r[0].toFixed(2)}–${r[1].toFixed(2)}×`;
console.error(
  `load: floor ${endToEnd.floorMs.toFixed(1)} ms, loadBundle ${endToEnd.loadMs.toFixed(1)} ms, ` +
    `${endToEnd.ratio.toFixed(2)}× (rounds ${range(endToEnd.ratioRange)})`,
);

// 2. Memory, each in a fresh process that reads the bundle from a file.
const file = here("../../.tmp/bench-load-bundle.json");
mkdirSync(dirname(file), { recursive: true });
writeFileSync(file, bundle.bytes);
const memory = (mode: string) => {
  const args = [
    "run",
    "--quiet",
    `--allow-read=${file}`,
    "--v8-flags=--expose-gc",
    here("./_memory_child.ts"),
    mode,
    file,
    bundle.publicKeyPem,
  ];
  const child = spawnSync("deno", args, { encoding: "utf8" });
  if (child.status !== 0) {
    throw new Error(`memory ${mode}: ${child.error?.message ?? child.stderr}`);
  }
  return JSON.parse(child.stdout) as { rssDelta: number; heapUsedDelta: number };
};
const parsedMemory = memory("parse");
const loadedMemory = memory("load");
rmSync(file);
console.error(
  `memory: loaded bundle +${(loadedMemory.heapUsedDelta / MiB / mib).toFixed(2)} MiB heap ` +
    `per MiB of file, +${(loadedMemory.rssDelta / MiB).toFixed(0)} MiB rss`,
);
if (process.argv.includes("--load-only")) process.exit(0);

// 3. Reload while evaluating: loadBundle, and the same steps without yielding
// between them (as before), alternately; the round with the median worst gap.
const first = await loadBundle(bundle.bytes, bundle.options);
const reloads: ReloadFigures[] = [];
const unyielding: ReloadFigures[] = [];
for (let round = 0; round < 5; round++) {
  reloads.push(
    await measureReload(first, () => loadBundle(bundle.bytes, bundle.options), bundle.targets),
  );
  unyielding.push(
    await measureReload(first, () => unyieldingLoad(bundle.bytes, bundle.options), bundle.targets),
  );
}
const byWorstGap = (a: ReloadFigures, b: ReloadFigures) => a.worstGapMs - b.worstGapMs;
const reload = reloads.sort(byWorstGap)[2]!;
const reloadUnyielding = unyielding.sort(byWorstGap)[2]!;
console.error(
  `reload: worst gap ${f(reload.worstGapMs)} ms (without yields ${
    f(reloadUnyielding.worstGapMs)
  } ms)`,
);

// 4. Start-up, with the npm build installed in .tmp/bench-startup/.
const STARTUP_RUNS = 21;
const startup = measureStartup(
  await prepareStartup(here("../../.tmp/bench-startup")),
  STARTUP_RUNS,
);

const perMiB = (bytes: number) => `${(bytes / MiB / mib).toFixed(1)} MiB`;
const table = (rows: string[][]) =>
  [
    `| ${rows[0]!.join(" | ")} |`,
    `| ${rows[0]!.map((_, i) => (i === 0 ? "---" : "---:")).join(" | ")} |`,
    ...rows.slice(1).map((row) => `| ${row.join(" | ")} |`),
  ].join("\n");
const reloadRow = (name: string, value: (r: ReloadFigures) => string) => [
  name,
  value(reload),
  value(reloadUnyielding),
];
const block = [
  `Bundle: ${mib.toFixed(1)} MiB, ${bundle.targets.toLocaleString("en-US")} targets × 3 rules, ` +
  `ECDSA P-256 signed. ${ROUNDS} rounds, the floor and \`loadBundle\` interleaved (which goes ` +
  "first alternates), each run after a full GC (`--expose-gc`); medians, and the lowest and " +
  "highest per-round ratio.",
  "",
  table([
    ["Load, end to end", "ms", "× floor", "rounds"],
    ["floor: UTF-8 decode + `JSON.parse` + SHA-256 of the bytes", f(endToEnd.floorMs), "1×", ""],
    [
      "`loadBundle`: parse, validate and compile, checksum, signature",
      f(endToEnd.loadMs),
      `${endToEnd.ratio.toFixed(2)}×`,
      range(endToEnd.ratioRange),
    ],
    [
      "`loadBundle` of the same bundle, rules in authoring key order",
      f(unordered.loadMs),
      `${unordered.ratio.toFixed(2)}×`,
      range(unordered.ratioRange),
    ],
  ]),
  "",
  table([
    ["Stage of `loadBundle` (one after the other)", "ms"],
    ...Object.entries(stage).map(([name, ms]) => [STAGE_NAMES[name as keyof StageTimes], f(ms)]),
  ]),
  "",
  table([
    ["Memory, per MiB of file, fresh process, after GC", "RSS growth", "heap used"],
    ["`JSON.parse` document", perMiB(parsedMemory.rssDelta), perMiB(parsedMemory.heapUsedDelta)],
    ["`loadBundle` result", perMiB(loadedMemory.rssDelta), perMiB(loadedMemory.heapUsedDelta)],
  ]),
  "",
  table([
    ["Reload while evaluating (median of 5 rounds)", "`loadBundle`", "same steps, no yields"],
    reloadRow("reload (load and swap), ms", (r) => f(r.reloadMs)),
    reloadRow("evaluate calls answered during the reload", (r) => `${r.evaluatesDuringReload}`),
    reloadRow("longest time without an answer, ms", (r) => f(r.worstGapMs)),
    reloadRow("time between evaluate tasks, no reload, ms", (r) => r.typicalGapMs.toFixed(3)),
    reloadRow("evaluate, ns per call, no reload", (r) => r.evaluateNs.toFixed(0)),
    reloadRow(
      "evaluate, ns per call, during the reload",
      (r) => r.evaluateNsDuringReload.toFixed(0),
    ),
  ]),
  "",
  table([
    [
      `Start-up (wall time, spawn to exit, median of ${STARTUP_RUNS})`,
      "ms",
      "middle half, ms",
      "× empty script",
    ],
    ...[...startup].map(([name, { ms, quartilesMs: [q1, q3], ratio }]) => [
      name,
      f(ms),
      `${f(q1)}–${f(q3)}`,
      `${ratio.toFixed(2)}×`,
    ]),
  ]),
].join("\n");
console.log(block);

if (!process.argv.includes("--no-write")) {
  const results = {
    generatedBy: "bench/load/run.ts",
    date: new Date().toISOString(),
    runtime: {
      deno: process.versions.deno,
      v8: process.versions.v8,
      node: spawnSync("node", ["--version"], { encoding: "utf8" }).stdout.trim(),
    },
    bundle: { bytes: bundle.bytes.byteLength, targets: bundle.targets, signature: "ECDSA_SHA_256" },
    load: {
      gcBeforeEachRun: endToEnd.gcBeforeEachRun,
      floorMs: endToEnd.floorMs,
      loadBundleMs: endToEnd.loadMs,
      ratio: endToEnd.ratio,
      ratioRange: endToEnd.ratioRange,
      unorderedLoadBundleMs: unordered.loadMs,
      unorderedRatio: unordered.ratio,
      rounds: endToEnd.rounds,
      stagesMs: stage,
    },
    memory: { parse: parsedMemory, load: loadedMemory },
    reload: { loadBundle: reload, withoutYields: reloadUnyielding },
    startup: Object.fromEntries(startup),
  };
  writeFileSync(here("./results-deno.json"), JSON.stringify(results, null, 2) + "\n");
  const docs = here("../../docs/performance.md");
  writeFileSync(docs, replaceBetweenMarkers(readFileSync(docs, "utf8"), "load:deno", block));
}
