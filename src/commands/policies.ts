/**
 * `policy policies <subcommand>`: editing the draft.
 *
 * @module
 */
import { defineGroup } from "./_session.ts";
import { runAddRule } from "./add_rule.ts";
import { runUpdatePolicy } from "./update_policy.ts";

/** Dispatches `policies update-policy` and `policies add-rule`. */
export const runPolicies = defineGroup("policies", "Edits the policies of the draft.", {
  "update-policy": {
    run: runUpdatePolicy,
    summary: "set a policy's default effect (creates the policy if needed)",
  },
  "add-rule": { run: runAddRule, summary: "add a rule from a Rule document" },
});
