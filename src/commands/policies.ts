/**
 * `policy policies <subcommand>`: editing the draft.
 *
 * @module
 */
import { defineGroup } from "./_session.ts";
import { runAddRule } from "./add_rule.ts";
import { runUpdatePolicy } from "./update_policy.ts";
import { runImportPolicies } from "./import_policies.ts";

/** Dispatches `policies update-policy`, `policies add-rule` and `policies import`. */
export const runPolicies = defineGroup("policies", "Edits the policies of the draft.", {
  "update-policy": {
    run: runUpdatePolicy,
    summary: "set a policy's default effect (creates the policy if needed)",
  },
  "add-rule": { run: runAddRule, summary: "add a rule from a Rule document" },
  import: {
    run: runImportPolicies,
    summary: "add the policies of a policy wrapper or of the older file form",
  },
});
