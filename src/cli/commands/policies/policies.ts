/**
 * `policy policies <subcommand>`: editing the draft. Each subcommand's
 * module is imported when it runs.
 *
 * @module
 */
import { defineGroup } from "../../kit/session.ts";
import { lazy } from "../../kit/command_spec.ts";

/** Dispatches the `policies` subcommands. */
export const runPolicies = defineGroup({
  name: "policies",
  summary: [
    "Edits the policies of the draft (draft.path) through the one guarded write path: each",
    "subcommand holds the working folder's lock, checks its change with the engine's rules,",
    "and writes the draft atomically. Nothing here builds or signs the bundle.",
  ].join("\n"),
  subcommands: {
    list: {
      run: lazy(async () => (await import("./list_policies.ts")).runListPolicies),
      summary: "list the draft's policies: key, target, rules, default, statuses",
    },
    "update-policy": {
      run: lazy(async () => (await import("./update_policy.ts")).runUpdatePolicy),
      summary: "set or remove a policy's default effect (creates the policy with --create)",
    },
    "add-rule": {
      run: lazy(async () => (await import("./add_rule.ts")).runAddRule),
      summary: "add a rule from a Rule document, or replace one (--replace)",
    },
    "remove-rule": {
      run: lazy(async () => (await import("./remove_rule.ts")).runRemoveRule),
      summary: "remove a rule from a policy",
    },
    "set-status": {
      run: lazy(async () => (await import("./set_rule_status.ts")).runSetRuleStatus),
      summary: "make a rule active or disabled (flip a kill switch)",
    },
    remove: {
      run: lazy(async () => (await import("./remove_policy.ts")).runRemovePolicy),
      summary: "remove a policy from the draft",
    },
    rename: {
      run: lazy(async () => (await import("./rename_policy.ts")).runRenamePolicy),
      summary: "give a policy another key",
    },
    import: {
      run: lazy(async () => (await import("./import_policies.ts")).runImportPolicies),
      summary: "add the policies of a policy wrapper or of the older file form",
    },
  },
  examples: [
    "policy policies list",
    "policy policies add-rule --policy-key billing.invoice.create --rule-file rules/paid-plans.rule.json",
    "policy policies set-status --policy-key search.index.query --rule-id search-off active",
  ],
});
