// Start-up of a library user under Node, as docs/install.md writes it: import
// the npm package, load a small signed bundle from a file (verified with its
// ECDSA key), decide once. bench/load/run.ts copies it next to the installed
// package: `node decide.mjs <bundle> <key>`.
import { readFile } from "node:fs/promises";
import process from "node:process";
import { evaluate, loadBundle } from "@policy/runtime";

const [bundlePath, keyPath] = process.argv.slice(2);
const loaded = await loadBundle(await readFile(bundlePath), {
  verify: { algorithm: "ECDSA_SHA_256", publicKey: await readFile(keyPath, "utf8") },
});
const decision = evaluate(loaded.compiled, {
  target: { service: "billing", resource: "invoice", action: "create" },
  context: { plan: "pro" },
});
if (decision.ruleId !== "paid-plans") throw new Error(`wrong decision: ${decision.ruleId}`);
