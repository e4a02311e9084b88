/**
 * `policy policies remove-rule`: removes one rule from a policy of the draft.
 *
 * @module
 */
import type { Rule } from "../../../engine/types.ts";
import type { DraftDocument } from "../../../authoring/draft.ts";
import type { CommandSpec } from "../../kit/command_spec.ts";
import { LIST_HINT, requirePolicy, requireRule } from "../../kit/draft.ts";
import { describeRuleBriefly, plural } from "../../kit/describe.ts";
import type { Output, Warning } from "../../kit/output.ts";
import { defineDraftEdit, type EditPlan } from "./_draft_edit.ts";

/** What `policies remove-rule` takes. */
export interface RemoveRuleParameters {
  policyKey: string;
  ruleId: string;
}

/** What `policies remove-rule` did. */
export type RemoveRulePlan = EditPlan<
  { policyKey: string; ruleId: string; removed: Rule; ruleCount: number }
>;

/** The declaration of `policies remove-rule`. */
export const REMOVE_RULE_SPEC: CommandSpec = {
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
};

/**
 * Removes rule `ruleId` from policy `policyKey` of `draft`; warns
 * `DEFAULTS_UNREACHABLE` when it was the last rule of a policy with a default.
 *
 * @throws {CliError} `POLICY_NOT_FOUND`, `RULE_NOT_FOUND`.
 */
export function planRemoveRule(
  draft: DraftDocument,
  { policyKey, ruleId }: RemoveRuleParameters,
  warnings: Warning[],
): RemoveRulePlan {
  const policy = requirePolicy(draft, policyKey, LIST_HINT);
  const { rule, index } = requireRule(policy, ruleId);
  policy.rules.splice(index, 1);
  if (policy.rules.length === 0 && policy.defaults !== undefined) {
    warnings.push({
      code: "DEFAULTS_UNREACHABLE",
      message: `policy ${
        JSON.stringify(policyKey)
      } has no rules left, so its default applies to no target until a rule names one`,
    });
  }
  return {
    document: { policyKey, ruleId, removed: rule, ruleCount: policy.rules.length },
    changed: true,
  };
}

function render(out: Output, { document: d }: RemoveRulePlan, file: string): void {
  out.info(`removed rule ${d.ruleId} from policy ${d.policyKey} in ${file}`);
  out.info(`  was:        ${describeRuleBriefly(d.removed)}`);
  out.info(`  rules left: ${plural(d.ruleCount, "rule")}`);
}

/** Removes a rule from a policy of the draft. */
export const runRemoveRule = defineDraftEdit(REMOVE_RULE_SPEC, {
  parameters: (session) => ({
    policyKey: session.requireString("policy-key"),
    ruleId: session.requireString("rule-id"),
  }),
  plan: (draft, parameters, _inputs: undefined, warnings) =>
    planRemoveRule(draft, parameters, warnings),
  render,
});
