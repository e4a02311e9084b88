/**
 * The library never needs a licence: `loadBundle` and `createEvaluator` run
 * in a child process with an empty environment (no POLICY_HOME, no HOME, no
 * licence variables), no environment permission at all, and read access to
 * the repository only. Needs `--allow-run=deno`; skipped (with a printed
 * reason) without it.
 */
import assert from "node:assert/strict";
import { denoCommand } from "../_deno_command.ts";
import { makeTempDir } from "../temp_dir.ts";
import * as path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

const DENO = denoCommand();
if (DENO === null) {
  console.log(
    "library_without_license_test: skipped, run permission for deno not granted (--allow-run=deno)",
  );
}

const SCRIPT = `
import { createEvaluator, loadBundle, signBundle } from ${
  JSON.stringify(path.join(ROOT, "mod.ts"))
};
const secret = "ab".repeat(32);
const bundle = await signBundle({
  schemaVersion: 1,
  env: "prod",
  policies: [{
    policyKey: "billing",
    activeVersion: 1,
    rules: [{
      id: "pro",
      status: "active",
      priority: 1,
      target: { service: "billing", resource: "invoice", action: "create" },
      when: { op: "eq", path: "plan", value: "pro" },
      effect: { type: "allow" },
    }],
  }],
}, { algorithm: "HMAC_SHA256", key: secret, keyId: "k" });
const loaded = await loadBundle(JSON.stringify(bundle), {
  verify: { algorithm: "HMAC_SHA256", publicKey: secret },
});
const evaluate = createEvaluator(loaded.compiled);
console.log(JSON.stringify([
  loaded.status.signature.status,
  evaluate({ target: { service: "billing", resource: "invoice", action: "create" }, context: { plan: "pro" } }).decision,
]));
`;

Deno.test({
  name: "loadBundle and createEvaluator work with no POLICY_HOME, no HOME and no licence",
  ignore: DENO === null,
  fn: async () => {
    const { dir } = await makeTempDir("library-");
    const script = path.join(dir, "evaluate.ts");
    await Deno.writeTextFile(script, SCRIPT);
    let output: Deno.CommandOutput;
    try {
      output = await new Deno.Command(DENO!, {
        // No --allow-env, no --allow-write, no --allow-net: reading any variable would fail.
        args: ["run", "--no-prompt", "--no-config", `--allow-read=${ROOT}`, script],
        cwd: dir,
        clearEnv: true,
        env: { NO_COLOR: "1" },
        stdout: "piped",
        stderr: "piped",
      }).output();
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
    const stderr = new TextDecoder().decode(output.stderr);
    assert.equal(output.code, 0, stderr);
    assert.deepEqual(JSON.parse(new TextDecoder().decode(output.stdout)), ["verified", "allow"]);
  },
});
