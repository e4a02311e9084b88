/**
 * `policy policies set-status`: makes one rule of the draft `active` or
 * `disabled`, the one-command flip of a kill switch kept ready as a
 * disabled rule.
 *
 * @module
 */
import type { Rule, RuleStatus } from "../../../engine/types.ts";
import type { DraftDocument } from "../../../authoring/draft.ts";
import type { CommandSpec } from "../../kit/command_spec.ts";
import { usageError } from "../../kit/errors.ts";
import { LIST_HINT, requirePolicy, requireRule } from "../../kit/draft.ts";
import { describeRuleBriefly } from "../../kit/describe.ts";
import type { Output } from "../../kit/output.ts";
import type { Session } from "../../kit/session.ts";
import { didYouMean } from "../../../_internal/suggest.ts";
import { describeValue } from "../../../_internal/check_options.ts";
import { defineDraftEdit, type EditPlan } from "./_draft_edit.ts";

const STATUSES: readonly RuleStatus[] = ["active", "disabled"];

/** What `policies set-status` takes. */
export interface SetRuleStatusParameters {
  policyKey: string;
  ruleId: string;
  status: RuleStatus;
}

/** What `policies set-status` did (`rule`: the rule as it is now). */
export type SetRuleStatusPlan =
  & EditPlan<{
    policyKey: string;
    ruleId: string;
    status: RuleStatus;
    previousStatus: string | null;
    changed: boolean;
  }>
  & { rule: Rule };

/** The declaration of `policies set-status`. */
export const SET_RULE_STATUS_SPEC: CommandSpec = {
  name: "policies set-status",
  usage: "policies set-status --policy-key <key> --rule-id <id> active|disabled",
  summary: [
    "Makes the rule <id> of the policy <key> active or disabled in the draft: a disabled",
    "rule never fires, so a kill switch is kept ready as a disabled rule and flipped with",
    "this command, then 'policy build'. A rule already in that status is left as it is",
    "(changed: false, the draft not rewritten). An unknown key is POLICY_NOT_FOUND and an",
    "unknown rule id RULE_NOT_FOUND, each naming the closest one the draft has.",
  ].join("\n"),
  flags: {
    "policy-key": { type: "string", value: "<key>", description: "the policy of the rule" },
    "rule-id": { type: "string", value: "<id>", description: "the rule to change" },
  },
  maxPositionals: 1,
  positionals: STATUSES,
  examples: [
    "policy policies set-status --policy-key search.index.query --rule-id search-off active",
    "policy policies set-status --policy-key search.index.query --rule-id search-off disabled",
  ],
};

/** The parameters from the command line. */
function parameters(session: Session): SetRuleStatusParameters {
  const policyKey = session.requireString("policy-key");
  const ruleId = session.requireString("rule-id");
  const [given] = session.positionals;
  const status = STATUSES.find((s) => s === given?.toLowerCase());
  if (status === undefined) {
    throw usageError(
      given === undefined
        ? "'policy policies set-status' needs the status: active or disabled"
        : `the status must be active or disabled, not ${describeValue(given)}${
          didYouMean(given, STATUSES)
        }`,
      "policy policies set-status --policy-key <key> --rule-id <id> active|disabled",
    );
  }
  return { policyKey, ruleId, status };
}

/**
 * Sets the status of rule `ruleId` of policy `policyKey`; a rule already in
 * that status is left as it is (`changed: false`).
 *
 * @throws {CliError} `POLICY_NOT_FOUND`, `RULE_NOT_FOUND`.
 */
export function planSetRuleStatus(
  draft: DraftDocument,
  { policyKey, ruleId, status }: SetRuleStatusParameters,
): SetRuleStatusPlan {
  const policy = requirePolicy(draft, policyKey, LIST_HINT);
  const { rule } = requireRule(policy, ruleId);
  const previous = (rule as { status?: unknown }).status;
  const changed = previous !== status;
  if (changed) rule.status = status;
  return {
    document: {
      policyKey,
      ruleId,
      status,
      previousStatus: typeof previous === "string" ? previous : null,
      changed,
    },
    changed,
    rule,
  };
}

function render(out: Output, { document: d, rule }: SetRuleStatusPlan, file: string): void {
  const { policyKey, ruleId, status, previousStatus: previous } = d;
  out.info(
    d.changed
      ? `rule ${ruleId} of policy ${policyKey} is now ${status}${
        previous !== null ? ` (was ${previous})` : ""
      } in ${file}`
      : `rule ${ruleId} of policy ${policyKey} is already ${status}; ${file} was not changed`,
  );
  out.info(`  rule: ${describeRuleBriefly(rule)}${status === "disabled" ? " (never fires)" : ""}`);
  if (d.changed) out.info("  clients see it once the bundle is rebuilt: 'policy build'");
}

/** Sets the status of a rule of the draft. */
export const runSetRuleStatus = defineDraftEdit(SET_RULE_STATUS_SPEC, {
  parameters,
  plan: (draft, parameters, _inputs: undefined) => planSetRuleStatus(draft, parameters),
  render,
});
