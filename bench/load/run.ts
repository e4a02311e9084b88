// deno task bench:load [--no-write]
//
// Load, reload, memory and start-up of our engine under Deno, with an ~8 MiB
// ECDSA-signed bundle (the default maxFileBytes). Writes
// bench/load/results-deno.json and the block between the markers in
// docs/performance.md.
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { loadBundle } from "../../mod.ts";
import { replaceBetweenMarkers } from "../peers/_report.ts";
import { makeSignedBundle } from "./_signed_bundle.ts";
import { type StageTimes, timeStages } from "./_stages.ts";
import { measureReload } from "./_reload.ts";
import { measureStartup, median, STARTUP_CASES } from "./_startup.ts";

const ROUNDS = 7;
const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const MiB = 1024 * 1024;

const bundle = await makeSignedBundle();
const mib = bundle.bytes.byteLength / MiB;
const text = new TextDecoder().decode(bundle.bytes);
console.error(`bundle: ${mib.toFixed(2)} MiB, ${bundle.targets} targets, ECDSA-signed`);

// 1. Load against JSON.parse, rounds interleaved; medians.
const parseTimes: number[] = [];
const loadTimes: number[] = [];
const stages: StageTimes[] = [];
for (let round = 0; round < ROUNDS; round++) {
  let start = performance.now();
  JSON.parse(text);
  parseTimes.push(performance.now() - start);
  start = performance.now();
  await loadBundle(bundle.bytes, bundle.options);
  loadTimes.push(performance.now() - start);
  stages.push(await timeStages(bundle.bytes, bundle.options));
}
const stage = Object.fromEntries(
  Object.keys(stages[0]!).map((k) => [k, median(stages.map((s) => s[k as keyof StageTimes]))]),
) as unknown as StageTimes;
const parseMs = median(parseTimes);
const loadMs = median(loadTimes);
const afterParse = stage.validate + stage.canonical + stage.sha256 + stage.compile;
console.error(`load: JSON.parse ${parseMs.toFixed(1)} ms, loadBundle ${loadMs.toFixed(1)} ms`);

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
console.error(`memory: loaded bundle +${(loadedMemory.rssDelta / MiB).toFixed(0)} MiB rss`);

// 3. Reload while evaluating.
const first = await loadBundle(bundle.bytes, bundle.options);
const reload = await measureReload(
  first,
  () => loadBundle(bundle.bytes, bundle.options),
  bundle.targets,
);
console.error(`reload: worst gap ${reload.worstGapMs.toFixed(1)} ms`);

// 4. Start-up.
const startup = measureStartup(STARTUP_CASES);

const f = (ms: number) => ms.toFixed(ms < 10 ? 1 : 0);
const perMiB = (bytes: number) => (bytes / MiB / mib).toFixed(1);
const block = [
  `Bundle: ${mib.toFixed(1)} MiB, ${bundle.targets.toLocaleString("en-US")} targets × 3 rules, ` +
  "ECDSA P-256 signed. Medians of " + ROUNDS + " rounds.",
  "",
  "| Load                                                      |   ms | × `JSON.parse` |",
  "| --------------------------------------------------------- | ---: | -------------: |",
  `| \`JSON.parse\` of the text                                  | ${f(parseMs)} | 1× |`,
  `| JSON.parse + validate + checksum + compile (the aim)       | ${f(parseMs + afterParse)} | ${
    ((parseMs + afterParse) / parseMs).toFixed(1)
  }× |`,
  `| \`loadBundle\`: all of it, UTF-8 decode and signature too    | ${f(loadMs)} | ${
    (loadMs / parseMs).toFixed(1)
  }× |`,
  "",
  "| Stage of `loadBundle` | ms |",
  "| --------------------- | -: |",
  ...Object.entries(stage).map(([name, ms]) => `| ${name} | ${f(ms)} |`),
  "",
  "| Memory, fresh process, after GC       | RSS | heap used |",
  "| ------------------------------------- | --: | --------: |",
  `| \`JSON.parse\` document, per MiB of file | ${perMiB(parsedMemory.rssDelta)} MiB | ${
    perMiB(parsedMemory.heapUsedDelta)
  } MiB |`,
  `| \`loadBundle\` result, per MiB of file   | ${perMiB(loadedMemory.rssDelta)} MiB | ${
    perMiB(loadedMemory.heapUsedDelta)
  } MiB |`,
  "",
  "| Reload while evaluating                                  |        |",
  "| -------------------------------------------------------- | -----: |",
  `| reload (load + swap), ms                                 | ${f(reload.reloadMs)} |`,
  `| evaluate calls answered during the reload                | ${reload.evaluatesDuringReload} |`,
  `| longest time without an answer during the reload, ms     | ${f(reload.worstGapMs)} |`,
  `| typical time between evaluate tasks, no reload, ms       | ${
    reload.typicalGapMs.toFixed(3)
  } |`,
  `| evaluate, ns per call: no reload / during the reload     | ${reload.evaluateNs.toFixed(0)} / ${
    reload.evaluateNsDuringReload.toFixed(0)
  } |`,
  "",
  "| Start-up (wall time from spawn to exit)                  | ms |",
  "| -------------------------------------------------------- | -: |",
  ...[...startup].map(([name, ms]) => `| ${name} | ${f(ms)} |`),
].join("\n");
console.log(block);

if (!process.argv.includes("--no-write")) {
  const results = {
    generatedBy: "bench/load/run.ts",
    date: new Date().toISOString(),
    runtime: { deno: process.versions.deno, v8: process.versions.v8 },
    bundle: { bytes: bundle.bytes.byteLength, targets: bundle.targets, signature: "ECDSA_SHA_256" },
    load: { jsonParseMs: parseMs, loadBundleMs: loadMs, stagesMs: stage },
    memory: { parse: parsedMemory, load: loadedMemory },
    reload,
    startupMs: Object.fromEntries(startup),
  };
  writeFileSync(here("./results-deno.json"), JSON.stringify(results, null, 2) + "\n");
  const docs = here("../../docs/performance.md");
  writeFileSync(docs, replaceBetweenMarkers(readFileSync(docs, "utf8"), "load:deno", block));
}
