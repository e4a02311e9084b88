// deno task bench [-- --filter 50-rules] — the engine against each scenario's
// straight-line floor, traces against evaluate, the client layer with a
// contextPolicy (docs/performance.md "Reproduce"). One process: quick to run,
// but every benchmark shares the JIT's feedback; `deno task bench:peers`
// measures each pair in fresh processes, in rounds, and writes the tables.
import { compileBundle, createEvaluator, createLocalClient } from "../mod.ts";
import { traceEvaluation } from "../src/engine/mod.ts";
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
        floor(requests[i++ & (QUERIES - 1)]!);
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
      floor(r);
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
