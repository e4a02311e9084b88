/**
 * `policy policies set-status`: makes one rule of the draft `active` or
 * `disabled`, the one-command flip of a kill switch kept ready as a
 * disabled rule.
 *
 * @module
 */
import type { RuleStatus } from "../../../engine/types.ts";
import { usageError } from "../../kit/errors.ts";
import { defineCommand } from "../../kit/session.ts";
import {
  LIST_HINT,
  readDraftForEdit,
  requirePolicy,
  requireRule,
  saveDraft,
} from "../../kit/draft.ts";
import { describeRuleBriefly } from "../../kit/describe.ts";
import { didYouMean } from "../../../_internal/suggest.ts";
import { describeValue } from "../../../_internal/check_options.ts";

const STATUSES: readonly RuleStatus[] = ["active", "disabled"];

/** Sets the status of a rule of the draft. */
export const runSetRuleStatus = defineCommand(
  {
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
  },
  async (session) => {
    const out = session.out;
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
    return await session.exclusive(async () => {
      const edit = await readDraftForEdit(session);
      const policy = requirePolicy(edit.draft, policyKey, LIST_HINT);
      const { rule } = requireRule(policy, ruleId);
      const previous = (rule as { status?: unknown }).status;
      const changed = previous !== status;
      if (changed) {
        rule.status = status;
        await saveDraft(session, edit);
      }
      out.result(
        {
          draftPath: edit.file,
          policyKey,
          ruleId,
          status,
          previousStatus: typeof previous === "string" ? previous : null,
          changed,
          warnings: out.warnings,
        },
        () => {
          out.info(
            changed
              ? `rule ${ruleId} of policy ${policyKey} is now ${status}${
                typeof previous === "string" ? ` (was ${previous})` : ""
              } in ${edit.file}`
              : `rule ${ruleId} of policy ${policyKey} is already ${status}; ${edit.file} was not changed`,
          );
          out.info(
            `  rule: ${describeRuleBriefly(rule)}${status === "disabled" ? " (never fires)" : ""}`,
          );
          if (changed) out.info("  clients see it once the bundle is rebuilt: 'policy build'");
        },
      );
      return 0;
    });
  },
);
