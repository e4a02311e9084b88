// deno task bench — evaluate against the nested-Map floor, and load against JSON.parse.
import { compileBundle, computeDigest, createEvaluator, validateBundle } from "../mod.ts";
import { buildFloor, SCENARIO_CONTEXTS, scenarioBundle, scenarioTarget } from "./_scenario.ts";

const QUERIES = 4096; // a rotating set of requests spread over all targets

for (const n of [10, 1_000, 100_000]) {
  const evaluate = createEvaluator(compileBundle(scenarioBundle(n)));
  const floor = buildFloor(n);
  const requests = Array.from({ length: QUERIES }, (_, q) => ({
    target: scenarioTarget((q * 7919) % n),
    context: SCENARIO_CONTEXTS[q % 3]!,
  }));
  let i = 0;
  Deno.bench({
    name: `floor (nested Map, hand-written) n=${n}`,
    group: `evaluate n=${n}`,
    baseline: true,
    fn: () => {
      const r = requests[i++ & (QUERIES - 1)]!;
      floor(r.target, r.context);
    },
  });
  Deno.bench({
    name: `engine evaluate n=${n}`,
    group: `evaluate n=${n}`,
    fn: () => {
      evaluate(requests[i++ & (QUERIES - 1)]!);
    },
  });
}

const text = JSON.stringify(scenarioBundle(10_000));
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
