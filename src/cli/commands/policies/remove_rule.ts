/**
 * `policy policies remove-rule`: removes one rule from a policy of the draft.
 *
 * @module
 */
import { defineCommand } from "../../kit/session.ts";
import {
  LIST_HINT,
  readDraftForEdit,
  requirePolicy,
  requireRule,
  saveDraft,
} from "../../kit/draft.ts";
import { describeRuleBriefly, plural } from "../../kit/describe.ts";

/** Removes a rule from a policy of the draft. */
export const runRemoveRule = defineCommand(
  {
    name: "policies remove-rule",
    usage: "policies remove-rule --policy-key <key> --rule-id <id>",
    summary: [
      "Removes the rule <id> from the policy <key> of the draft; the other rules keep their",
      "order. An unknown key is POLICY_NOT_FOUND and an unknown rule id RULE_NOT_FOUND, each",
      "naming the closest one the draft has; the draft is then unchanged. Removing the last",
      "rule of a policy that has a default warns DEFAULTS_UNREACHABLE: a default applies only",
      "at the targets the policy's rules name.",
    ].join("\n"),
    flags: {
      "policy-key": { type: "string", value: "<key>", description: "the policy of the rule" },
      "rule-id": { type: "string", value: "<id>", description: "the rule to remove" },
    },
    examples: [
      "policy policies remove-rule --policy-key billing.invoice.create --rule-id paid-plans",
      "policy policies remove-rule --policy-key search.index.query --rule-id search-off --format json",
    ],
  },
  async (session) => {
    const out = session.out;
    const policyKey = session.requireString("policy-key");
    const ruleId = session.requireString("rule-id");
    return await session.exclusive(async () => {
      const edit = await readDraftForEdit(session);
      const policy = requirePolicy(edit.draft, policyKey, LIST_HINT);
      const { rule, index } = requireRule(policy, ruleId);
      policy.rules.splice(index, 1);
      if (policy.rules.length === 0 && policy.defaults !== undefined) {
        out.warn(
          "DEFAULTS_UNREACHABLE",
          `policy ${
            JSON.stringify(policyKey)
          } has no rules left, so its default applies to no target until a rule names one`,
        );
      }
      await saveDraft(session, edit);
      out.result(
        {
          draftPath: edit.file,
          policyKey,
          ruleId,
          removed: rule,
          ruleCount: policy.rules.length,
          warnings: out.warnings,
        },
        () => {
          out.info(`removed rule ${ruleId} from policy ${policyKey} in ${edit.file}`);
          out.info(`  was:        ${describeRuleBriefly(rule)}`);
          out.info(`  rules left: ${plural(policy.rules.length, "rule")}`);
        },
      );
      return 0;
    });
  },
);
