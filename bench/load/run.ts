// deno task bench:load [--no-write] [--load-only] [--startup-only] [--before <checkout>]
//
// Load, reload, memory and start-up of our engine under Deno, with an ~8 MiB
// ECDSA-signed bundle (the default maxFileBytes). Writes
// bench/load/results-deno.json and the block between the markers in
// docs/performance.md. Run with --v8-flags=--expose-gc (the task does): each
// timed load starts after a full collection. --load-only measures the load
// and memory and prints them, nothing else (no file is written);
// --startup-only measures the start-up and prints it (no file is written).
// --before <checkout> runs that checkout's `deno task policy` (tools/policy.ts)
// beside this tree's in the start-up table, in the same runs.
import { spawnSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { loadBundle } from "../../mod.ts";
import { markdownTable as table, runCaption, startRun, writeDocBlock } from "../_report.ts";
import { makeSignedBundle } from "./signed_bundle.ts";
import { type StageTimes, timeStages } from "./_stages.ts";
import { measureReload, type ReloadFigures } from "./_reload.ts";
import { unyieldingLoad } from "./_unyielding_load.ts";
import { measureStartup, prepareStartup } from "./_startup.ts";
import { formatRatioSpread, median, ratioSpread } from "../_stats.ts";

const ROUNDS = 7;
const finishRun = startRun();

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

const flag = (name: string) => {
  const i = process.argv.indexOf(name);
  return i < 0 ? undefined : process.argv[i + 1];
};
const before = flag("--before");
const STARTUP_RUNS = 21;
if (process.argv.includes("--startup-only")) {
  const startup = measureStartup(
    await prepareStartup(here("../../.tmp/bench-startup"), before),
    STARTUP_RUNS,
  );
  for (const [name, { ms, quartilesMs: [q1, q3], ratio }] of startup) {
    console.log(`${name}: ${f(ms)} ms (${f(q1)}–${f(q3)}), ${ratio.toFixed(2)}×`);
  }
  console.log(runCaption(finishRun()));
  process.exit(0);
}

const bundle = await makeSignedBundle();
const mib = bundle.bytes.byteLength / MiB;
const text = new TextDecoder().decode(bundle.bytes);
console.error(`bundle: ${mib.toFixed(2)} MiB, ${bundle.targets} targets, ECDSA-signed`);

// 1. Load end to end against the work every load must do: decode the bytes,
// JSON.parse the text and SHA-256 the bytes (the floor). Each run starts after
// a full collection (`gc()`: the task runs with --expose-gc), so that no run
// pays for the garbage of the one before: without it the ratio moved 2.8-4.6x
// with the heap's state alone. Rounds interleaved, each starting one case
// further along; a ratio is taken round by round (bench/_stats.ts).
const collect = (globalThis as { gc?: () => void }).gc;
if (collect === undefined) {
  throw new Error("run with --v8-flags=--expose-gc (deno task bench:load)");
}
const floor = async (bytes: Uint8Array<ArrayBuffer>) => {
  JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  await crypto.subtle.digest("SHA-256", bytes);
};
const loadCases: [string, () => Promise<unknown>][] = [
  ["floor", () => floor(bundle.bytes as Uint8Array<ArrayBuffer>)],
  ["parse", () => Promise.resolve(JSON.parse(text))],
  ["load", () => loadBundle(bundle.bytes, bundle.options)],
  ["unordered", () => loadBundle(bundle.unorderedBytes, bundle.options)],
];
const loadRounds = new Map(loadCases.map(([name]) => [name, [] as number[]]));
const stages: StageTimes[] = [];
for (let round = 0; round < ROUNDS; round++) {
  const turn = round % loadCases.length;
  for (const [name, run] of [...loadCases.slice(turn), ...loadCases.slice(0, turn)]) {
    collect();
    const start = performance.now();
    await run();
    loadRounds.get(name)!.push(performance.now() - start);
  }
  collect();
  stages.push(await timeStages(bundle.bytes, bundle.options));
}
const stage = Object.fromEntries(
  Object.keys(stages[0]!).map((k) => [k, median(stages.map((s) => s[k as keyof StageTimes]))]),
) as unknown as StageTimes;
const of = (name: string) => loadRounds.get(name)!;
const floorMs = median(of("floor"));
const parseMs = median(of("parse"));
const loadMs = median(of("load"));
const unorderedLoadMs = median(of("unordered"));
const loadRatio = ratioSpread(of("load"), of("floor"))!;
const unorderedRatio = ratioSpread(of("unordered"), of("floor"))!;
const parseRatio = ratioSpread(of("load"), of("parse"))!;
console.error(
  `load: floor ${floorMs.toFixed(1)} ms, loadBundle ${loadMs.toFixed(1)} ms (${
    formatRatioSpread(loadRatio)
  })`,
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
const startup = measureStartup(
  await prepareStartup(here("../../.tmp/bench-startup"), before),
  STARTUP_RUNS,
);

const perMiB = (bytes: number) => `${(bytes / MiB / mib).toFixed(1)} MiB`;
const reloadRow = (name: string, value: (r: ReloadFigures) => string) => [
  name,
  value(reload),
  value(reloadUnyielding),
];
const block = [
  `Bundle: ${mib.toFixed(1)} MiB, ${bundle.targets.toLocaleString("en-US")} targets × 3 rules, ` +
  `ECDSA P-256 signed. ${ROUNDS} interleaved rounds, a full garbage collection before each ` +
  "run; medians, and for each ratio (taken round by round) the lowest and highest round. " +
  "The floor is what every load must do: UTF-8 decoding, `JSON.parse` and SHA-256 of the bytes. " +
  runCaption(finishRun()),
  "",
  table([
    ["Load", "ms", "× floor", "× `JSON.parse`"],
    ["floor: decode + `JSON.parse` + SHA-256", f(floorMs), "1×", ""],
    ["`JSON.parse` of the text alone", f(parseMs), "", "1×"],
    [
      "`loadBundle`, end to end (decode, parse, validate, checksum, signature, compile)",
      f(loadMs),
      formatRatioSpread(loadRatio),
      formatRatioSpread(parseRatio),
    ],
    [
      "`loadBundle` of the same bundle, rules in authoring key order",
      f(unorderedLoadMs),
      formatRatioSpread(unorderedRatio),
      "",
    ],
  ]),
  "",
  table([
    ["Stage of `loadBundle`, one after the other (medians)", "ms"],
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
      floor: "decode + JSON.parse + SHA-256 of the bytes",
      gcBeforeEachRun: true,
      floorMs,
      jsonParseMs: parseMs,
      loadBundleMs: loadMs,
      unorderedLoadBundleMs: unorderedLoadMs,
      ratio: loadRatio.median,
      ratioRange: [loadRatio.min, loadRatio.max],
      unorderedRatio,
      rounds: [...loadRounds.keys()].map((name) => ({ name, ms: of(name) })),
      stagesMs: stage,
    },
    memory: { parse: parsedMemory, load: loadedMemory },
    reload: { loadBundle: reload, withoutYields: reloadUnyielding },
    startup: Object.fromEntries(startup),
  };
  writeFileSync(here("./results-deno.json"), JSON.stringify(results, null, 2) + "\n");
  writeDocBlock(here("../.."), "load:deno", block);
}
