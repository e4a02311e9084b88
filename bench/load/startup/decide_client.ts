// Start-up of a library user under Deno, as docs/install.md writes it: the
// same as decide.ts through a local client, which reads the file with
// `node:fs`. `deno run --allow-read=<dir> decide_client.ts <bundle> <key>`.
import { createLocalClient } from "../../../mod.ts";

const [bundlePath, keyPath] = Deno.args as [string, string];
const client = await createLocalClient({
  bundlePath,
  verify: { algorithm: "ECDSA_SHA_256", publicKey: await Deno.readTextFile(keyPath) },
});
const decision = client.evaluate({
  target: { service: "billing", resource: "invoice", action: "create" },
  context: { plan: "pro" },
});
await client.close();
if (decision.ruleId !== "paid-plans") throw new Error(`wrong decision: ${decision.ruleId}`);
