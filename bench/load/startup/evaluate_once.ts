// Start-up of a library user: import mod.ts, compile a one-rule bundle, evaluate once.
import { compileBundle, createEvaluator } from "../../../mod.ts";

const target = { service: "billing", resource: "invoice", action: "create" };
const compiled = compileBundle({
  schemaVersion: 1,
  env: "prod",
  policies: [{
    policyKey: "billing",
    activeVersion: 1,
    rules: [{ id: "all", status: "active", priority: 1, target, effect: { type: "allow" } }],
  }],
});
if (createEvaluator(compiled)({ target }).decision !== "allow") throw new Error("wrong decision");
