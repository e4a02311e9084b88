// deno task demo — validate the example bundle, sign it, load it through the
// verification pipeline and evaluate a few requests.
import { loadBundle, signBundle, validateBundle } from "../mod.ts";
import { createEvaluator } from "../mod.ts";

const text = await Deno.readTextFile(new URL("./bundle.json", import.meta.url));
const bundle = JSON.parse(text);

const validation = validateBundle(bundle);
console.log(
  `validate: ${validation.valid ? "valid" : "INVALID"}, ${validation.warnings.length} warning(s)`,
);

// A throwaway HMAC secret for the demo (never hard-code real secrets).
const secret = Array.from(
  crypto.getRandomValues(new Uint8Array(32)),
  (b) => b.toString(16).padStart(2, "0"),
).join("");
const signed = await signBundle(bundle, { algorithm: "HMAC_SHA256", key: secret, keyId: "demo" });
const loaded = await loadBundle(JSON.stringify(signed), {
  verify: { algorithm: "HMAC_SHA256", publicKey: secret },
});
console.log("status:", JSON.stringify(loaded.status));

const evaluate = createEvaluator(loaded.compiled, { parseCustomEffect: true });
const requests = [
  { service: "billing", resource: "invoice", action: "create", context: { plan: "pro" } },
  {
    service: "billing",
    resource: "invoice",
    action: "create",
    context: { plan: "free", seats: 12 },
  },
  { service: "billing", resource: "invoice", action: "create", context: { plan: "trial" } },
  { service: "search", resource: "catalog", action: "query", context: { region: "eu" } },
  {
    service: "search",
    resource: "catalog",
    action: "query",
    context: { flags: { searchOutage: true } },
  },
  { service: "unknown", resource: "thing", action: "do", context: {} },
];
for (const { context, ...target } of requests) {
  const decision = evaluate({ target, context });
  console.log(
    `${target.service}/${target.resource}/${target.action} ${JSON.stringify(context)} -> ${
      JSON.stringify(decision)
    }`,
  );
}
