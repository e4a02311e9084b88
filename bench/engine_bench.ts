// deno task bench — the engine against each scenario's hand-written floor,
// traces against evaluate, the client layer with a contextPolicy, and load
// against JSON.parse (docs/performance.md "Reproduce"). One process: quick to
// run, but every benchmark shares the JIT's feedback; `deno task bench:peers`
// measures each pair in a fresh process.
import { compileBundle, createEvaluator, createLocalClient, validateBundle } from "../mod.ts";
import { computeDigest, traceEvaluation } from "../src/engine/mod.ts";
import { QUERIES, scenarioById, scenarioRequests, SCENARIOS } from "./scenarios/mod.ts";

for (const scenario of SCENARIOS) {
  for (const n of scenario.sizes) {
    const compiled = compileBundle(scenario.bundle(n));
    const evaluate = createEvaluator(compiled);
    const floor = scenario.floor(n);
    const requests = scenarioRequests(scenario, n);
    const group = `${scenario.id} n=${n}`;
    let i = 0;
    Deno.bench({
      name: `floor ${group}`,
      group,
      baseline: true,
      fn: () => {
        const r = requests[i++ & (QUERIES - 1)]!;
        floor(r.target, r.context);
      },
    });
    Deno.bench({
      name: `evaluate ${group}`,
      group,
      fn: () => {
        evaluate(requests[i++ & (QUERIES - 1)]!);
      },
    });
    if (n !== scenario.sizes.at(-1)) continue;
    Deno.bench({
      name: `traceEvaluation ${group}`,
      group,
      fn: () => {
        traceEvaluation(compiled, requests[i++ & (QUERIES - 1)]!);
      },
    });
  }
}

// The client layer: a local client with a contextPolicy, against the evaluator alone.
for (const id of ["3-rules", "3-rules-nested"]) {
  const scenario = scenarioById(id);
  const n = 1_000;
  const bundlePath = `.tmp/bench/${id}.json`;
  await Deno.mkdir(".tmp/bench", { recursive: true });
  await Deno.writeTextFile(bundlePath, JSON.stringify(scenario.bundle(n)));
  const contextPolicy = { allowedKeys: scenario.contextKeys };
  const client = await createLocalClient({ bundlePath, allowUnsigned: true, contextPolicy });
  const evaluate = createEvaluator(compileBundle(scenario.bundle(n)), { contextPolicy });
  const floor = scenario.floor(n);
  const allowed = new Set(scenario.contextKeys);
  const requests = scenarioRequests(scenario, n);
  const group = `client ${id} n=${n}`;
  let i = 0;
  Deno.bench({
    name: `floor + allowed keys ${group}`,
    group,
    baseline: true,
    fn: () => {
      const r = requests[i++ & (QUERIES - 1)]!;
      for (const key in r.context) {
        if (!allowed.has(key) && Object.hasOwn(r.context, key)) {
          throw new Error(`context key ${key} is not allowed`);
        }
      }
      floor(r.target, r.context);
    },
  });
  Deno.bench({
    name: `evaluate, contextPolicy ${group}`,
    group,
    fn: () => {
      evaluate(requests[i++ & (QUERIES - 1)]!);
    },
  });
  Deno.bench({
    name: `local client, contextPolicy ${group}`,
    group,
    fn: () => {
      client.evaluate(requests[i++ & (QUERIES - 1)]!);
    },
  });
}

const text = JSON.stringify(scenarioById("3-rules").bundle(10_000));
console.log(`load bench: ${(text.length / 1048576).toFixed(1)} MiB bundle, 10,000 targets`);
Deno.bench({
  name: "JSON.parse",
  group: "load 10,000 targets",
  baseline: true,
  fn: () => {
    JSON.parse(text);
  },
});
Deno.bench({
  name: "JSON.parse + validate + checksum + compile",
  group: "load 10,000 targets",
  fn: async () => {
    const doc = JSON.parse(text);
    if (!validateBundle(doc).valid) throw new Error("invalid");
    await computeDigest(doc);
    compileBundle(doc, { skipValidation: true });
  },
});
