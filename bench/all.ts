// deno task bench:all — every benchmark that writes a table of
// docs/performance.md, in turn, then the aims table summarising them
// (bench/aims.ts); each task formats the page after writing it (`deno fmt`).
// Prints how long each took.
// Stops at the first that fails. Run it on a quiet machine: the tables are
// ratios within one run, but a busy machine widens their spread.
const TASKS = [
  "bench:peers",
  "bench:peers:node",
  "bench:load",
  "bench:enforce",
  "bench:parse-json",
  "bench:decision-log",
  "bench:openfeature",
  "bench:otel",
  "bench:rollout",
  "bench:change-safety",
  "bench:traces",
  "bench:aims",
];

const took: [string, number][] = [];
const start = performance.now();
for (const task of TASKS) {
  const began = performance.now();
  console.error(`\n== deno task ${task}`);
  const { code } = await new Deno.Command("deno", { args: ["task", task] }).spawn().status;
  took.push([task, (performance.now() - began) / 1000]);
  if (code !== 0) {
    console.error(`deno task ${task} failed (exit code ${code})`);
    Deno.exit(code);
  }
}
console.error("\nbench:all, seconds per task:");
for (const [task, seconds] of took) console.error(`  ${task.padEnd(20)} ${seconds.toFixed(0)}`);
console.error(`  ${"total".padEnd(20)} ${((performance.now() - start) / 1000).toFixed(0)}`);
