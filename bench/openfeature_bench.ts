// deno task bench — what a flag costs through OpenFeature (docs/performance.md
// "OpenFeature"): the 1,000-target scenario's requests as boolean flags
// (`service/resource/action` keys), resolved by a remote client fed from
// memory, four ways: `client.evaluate` (the baseline), the provider's own
// resolve method, `getBooleanValue` of @openfeature/server-sdk through the
// provider, and `getBooleanValue` through the SDK's InMemoryProvider (what the
// SDK costs with the simplest provider there is). And `client.evaluate` of a
// client a provider listens to, against one nobody listens to: equal within
// noise, since events cost nothing on evaluate.
import { InMemoryProvider, OpenFeature } from "@openfeature/server-sdk";
import { createOpenFeatureProvider } from "../src/openfeature/mod.ts";
import { QUERIES, scenarioRequests, THREE_RULES } from "./scenarios/mod.ts";
import { memoryClients } from "./_memory_client.ts";

const N = 1_000;
/** A remote client fed from memory (no network): the same object a service holds. */
const client = await memoryClients(THREE_RULES.bundle(N));

const requests = scenarioRequests(THREE_RULES, N);
const keys = requests.map(({ target: t }) => `${t.service}/${t.resource}/${t.action}`);
const contexts = requests.map((r) => r.context as Record<string, string>);

const alone = await client();
const listened = await client();
const provider = createOpenFeatureProvider(listened);
await OpenFeature.setProviderAndWait("policy", provider);
const flags = OpenFeature.getClient("policy");
// The same flags, always on, from the SDK's own provider.
await OpenFeature.setProviderAndWait(
  "in-memory",
  new InMemoryProvider(Object.fromEntries(
    [...new Set(keys)].map((key) => [key, {
      variants: { on: true, off: false },
      defaultVariant: "on",
      disabled: false,
    }]),
  )),
);
const inMemory = OpenFeature.getClient("in-memory");
const logger = console;

let i = 0;
let sink = 0;
const group = `a flag through OpenFeature n=${N}`;
Deno.bench({
  name: "client.evaluate",
  group,
  baseline: true,
  fn: () => {
    const q = i++ & (QUERIES - 1);
    if (listened.evaluate(requests[q]!).decision === "allow") sink++;
  },
});
Deno.bench({
  name: "provider.resolveBooleanEvaluation (the provider alone)",
  group,
  fn: async () => {
    const q = i++ & (QUERIES - 1);
    const details = await provider.resolveBooleanEvaluation(keys[q]!, false, contexts[q]!, logger);
    if (details.value) sink++;
  },
});
Deno.bench({
  name: "OpenFeature getBooleanValue, this provider",
  group,
  fn: async () => {
    const q = i++ & (QUERIES - 1);
    if (await flags.getBooleanValue(keys[q]!, false, contexts[q]!)) sink++;
  },
});
Deno.bench({
  name: "OpenFeature getBooleanValue, the SDK's InMemoryProvider",
  group,
  fn: async () => {
    const q = i++ & (QUERIES - 1);
    if (await inMemory.getBooleanValue(keys[q]!, false, contexts[q]!)) sink++;
  },
});

const quiet = `client.evaluate with and without a provider n=${N}`;
Deno.bench({
  name: "client.evaluate, no listener",
  group: quiet,
  baseline: true,
  fn: () => {
    if (alone.evaluate(requests[i++ & (QUERIES - 1)]!).decision === "allow") sink++;
  },
});
Deno.bench({
  name: "client.evaluate, a provider subscribed",
  group: quiet,
  fn: () => {
    if (listened.evaluate(requests[i++ & (QUERIES - 1)]!).decision === "allow") sink++;
  },
});

// The clients hold a poll timer until closed; deno bench needs none left behind.
globalThis.addEventListener("unload", () => {
  void OpenFeature.close();
  void alone.close();
  void listened.close();
  if (sink < 0) console.log(sink);
});
