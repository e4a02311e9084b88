// deno task bench — what a client's evaluate costs over the engine's, with and
// without onDecision (docs/performance.md "Decision logs"): without the hook
// the client hands out the engine's evaluator itself, so the first two must
// be equal within noise.
import {
  compileBundle,
  createEvaluator,
  createRemoteClient,
  signBundle,
  signFreshness,
} from "../mod.ts";
import { QUERIES, scenarioRequests, THREE_RULES } from "./scenarios/mod.ts";

const N = 1_000;
const scope = { orgId: "bench", projectId: "bench", env: "prod" as const };
const bundle = { ...THREE_RULES.bundle(N), ...scope };
const pair = await crypto.subtle.generateKey(
  { name: "ECDSA", namedCurve: "P-256" },
  false,
  ["sign", "verify"],
);
const key = { algorithm: "ECDSA_SHA_256" as const, key: pair.privateKey, keyId: "bench" };
const signed = await signBundle({ ...bundle, bundleVersion: 1 }, key);
const body = JSON.stringify(signed);
// The same bundle with a signed freshness statement (valid 30 days): its expiry is watched by a
// timer that swaps the evaluator when it fires, so evaluate itself must cost the same.
const freshBody = JSON.stringify({
  ...signed,
  freshness: await signFreshness(signed, {
    ...key,
    issuedAt: Date.now(),
    expiresAt: Date.now() + 30 * 86_400_000,
  }),
});

/** A remote client fed from memory (no network): the same object a service holds. */
function client(extra: Record<string, unknown> = {}, text = body) {
  return createRemoteClient({
    baseUrl: "https://bench.invalid",
    runtimeKey: "rk_bench",
    ...scope,
    verify: { algorithm: "ECDSA_SHA_256", publicKey: pair.publicKey },
    poll: { intervalMs: 2_147_483_647 },
    fetch: () => Promise.resolve(new Response(text)),
    ...extra,
  });
}

const requests = scenarioRequests(THREE_RULES, N);
const engine = createEvaluator(compileBundle(bundle));
const plain = await client();
const fresh = await client({ requireFreshness: true }, freshBody);
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
