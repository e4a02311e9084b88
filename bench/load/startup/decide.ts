// Start-up of a library user under Deno: import the library, load a small
// signed bundle from a file (read with Deno's own API, verified with its
// ECDSA key), decide once. `deno run --allow-read=<dir> decide.ts <bundle> <key>`.
import { evaluate, loadBundle } from "../../../mod.ts";

const [bundlePath, keyPath] = Deno.args as [string, string];
const loaded = await loadBundle(await Deno.readFile(bundlePath), {
  verify: { algorithm: "ECDSA_SHA_256", publicKey: await Deno.readTextFile(keyPath) },
});
const decision = evaluate(loaded.compiled, {
  target: { service: "billing", resource: "invoice", action: "create" },
  context: { plan: "pro" },
});
if (decision.ruleId !== "paid-plans") throw new Error(`wrong decision: ${decision.ruleId}`);
