// deno task bench:openfeature [--rounds 5] [--no-write]
//
// What a flag costs through OpenFeature (docs/performance.md "OpenFeature"):
// the 1,000-target scenario's requests as boolean flags
// (`service/resource/action` keys, the context as evaluation context),
// resolved by a remote client fed from memory, four ways: `client.evaluate`
// (the baseline), the provider's own resolve method, `getBooleanValue` of
// @openfeature/server-sdk through the provider, and `getBooleanValue` through
// the SDK's InMemoryProvider (what the SDK costs with the simplest provider
// there is). And `client.evaluate` of a client nobody listens to: equal
// within noise to one a provider listens to, since events cost nothing on
// evaluate. Writes the block between the `openfeature` markers of
// docs/performance.md.
import { InMemoryProvider, OpenFeature } from "@openfeature/server-sdk";
import { createOpenFeatureProvider } from "../../src/openfeature/mod.ts";
import { QUERIES, scenarioRequests, THREE_RULES } from "../scenarios/mod.ts";
import { memoryClients } from "../_memory_client.ts";
import { caseRatio, caseSpread, measureRounds } from "../_rounds.ts";
import { formatRatioSpread } from "../_stats.ts";
import { markdownTable } from "../_report.ts";
import { startInProcessRun } from "../_in_process_run.ts";

const run = startInProcessRun();

const N = 1_000;
const client = await memoryClients(THREE_RULES.bundle(N));
const requests = scenarioRequests(THREE_RULES, N);
const keys = requests.map(({ target: t }) => `${t.service}/${t.resource}/${t.action}`);
const contexts = requests.map((r) => r.context as Record<string, string>);

const alone = await client();
const listened = await client();
const provider = createOpenFeatureProvider(listened);
await OpenFeature.setProviderAndWait("policy", provider);
const flagClient = OpenFeature.getClient("policy");
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
const BASELINE = "`client.evaluate`, a provider subscribed (baseline)";
const cases = [
  { name: BASELINE, fn: () => listened.evaluate(requests[i++ & (QUERIES - 1)]!) },
  {
    name: "`client.evaluate`, no listener",
    fn: () => alone.evaluate(requests[i++ & (QUERIES - 1)]!),
  },
  {
    name: "`provider.resolveBooleanEvaluation` (the provider alone)",
    awaited: true,
    fn: () => {
      const q = i++ & (QUERIES - 1);
      return provider.resolveBooleanEvaluation(keys[q]!, false, contexts[q]!, logger);
    },
  },
  {
    name: "`getBooleanValue`, this provider",
    awaited: true,
    fn: () => {
      const q = i++ & (QUERIES - 1);
      return flagClient.getBooleanValue(keys[q]!, false, contexts[q]!);
    },
  },
  {
    name: "`getBooleanValue`, the SDK's `InMemoryProvider`",
    awaited: true,
    fn: () => {
      const q = i++ & (QUERIES - 1);
      return inMemory.getBooleanValue(keys[q]!, false, contexts[q]!);
    },
  },
];
const figures = await measureRounds(cases, { rounds: run.rounds });
await OpenFeature.close();
await alone.close();
await listened.close();

const table = markdownTable([
  [`per flag, ${N.toLocaleString("en-US")} targets`, "ns per call", "× `client.evaluate`"],
  ...cases.map(({ name }) => [
    name,
    (caseSpread(figures, name).median * 1e6).toFixed(0),
    name === BASELINE ? "1×" : formatRatioSpread(caseRatio(figures, name, BASELINE)),
  ]),
]);
run.publish("openfeature", table, "2 ms batches (each call awaited where it returns a promise)");
