// deno task bench — what a client's evaluate costs over the engine's, with and
// without onDecision (docs/performance.md "Decision logs"): without the hook
// the client hands out the engine's evaluator itself, so the first two must
// be equal within noise.
import { compileBundle, createEvaluator } from "../mod.ts";
import { QUERIES, scenarioRequests, THREE_RULES } from "./scenarios/mod.ts";
import { memoryClients } from "./_memory_client.ts";

const N = 1_000;
const bundle = THREE_RULES.bundle(N);
/** A remote client fed from memory (no network): the same object a service holds. */
const client = await memoryClients(bundle);

const requests = scenarioRequests(THREE_RULES, N);
const engine = createEvaluator(compileBundle(bundle));
const plain = await client();
// The same bundle with a freshness statement: its expiry swaps the evaluator, so this must equal plain.
const fresh = await (await memoryClients(bundle, { freshness: true }))({ requireFreshness: true });
let sink = 0;
const logged = await client({ onDecision: () => sink++ });
const sampled = await client({ onDecision: () => sink++, decisionLog: { sampleRate: 0.01 } });
const masked = await client({
  onDecision: () => sink++,
  decisionLog: { maskContextKeys: ["plan", "region"] },
});

let i = 0;
const group = `client evaluate n=${N}`;
Deno.bench({
  name: "engine evaluate",
  group,
  baseline: true,
  fn: () => void engine(requests[i++ & (QUERIES - 1)]!),
});
Deno.bench({
  name: "client.evaluate, no onDecision",
  group,
  fn: () => void plain.evaluate(requests[i++ & (QUERIES - 1)]!),
});
Deno.bench({
  name: "client.evaluate, freshness statement (requireFreshness)",
  group,
  fn: () => void fresh.evaluate(requests[i++ & (QUERIES - 1)]!),
});
Deno.bench({
  name: "client.evaluate, onDecision (every decision)",
  group,
  fn: () => void logged.evaluate(requests[i++ & (QUERIES - 1)]!),
});
Deno.bench({
  name: "client.evaluate, onDecision, sampleRate 0.01",
  group,
  fn: () => void sampled.evaluate(requests[i++ & (QUERIES - 1)]!),
});
Deno.bench({
  name: "client.evaluate, onDecision, 2 masked keys",
  group,
  fn: () => void masked.evaluate(requests[i++ & (QUERIES - 1)]!),
});

// The clients hold a poll timer until closed; deno bench needs none left behind.
globalThis.addEventListener("unload", () => {
  for (const c of [plain, fresh, logged, sampled, masked]) void c.close();
});
