/**
 * `policy policies remove`: removes one policy from the draft.
 *
 * @module
 */
import { defineCommand } from "../../kit/session.ts";
import { LIST_HINT, readDraftForEdit, requirePolicy, saveDraft } from "../../kit/draft.ts";
import { isTarget } from "../../../_authoring/draft.ts";
import { describeEffect, describeTarget, plural } from "../../kit/describe.ts";

/** Removes a policy from the draft. */
export const runRemovePolicy = defineCommand(
  {
    name: "policies remove",
    usage: "policies remove --policy-key <key>",
    summary: [
      "Removes the policy <key>, with its rules and default, from the draft. An unknown key is",
      "POLICY_NOT_FOUND, naming the closest key the draft has. A policy 'analyze' found in the",
      "code (it has a discoveredTarget) leaves that target without a policy: 'policy analyze",
      "--check' reports it missing, and the bundle decides it by no policy.",
    ].join("\n"),
    flags: {
      "policy-key": { type: "string", value: "<key>", description: "the policy to remove" },
    },
    examples: [
      "policy policies remove --policy-key billing.refund.create",
      "policy policies remove --policy-key billing.refund.create --format json",
    ],
  },
  async (session) => {
    const out = session.out;
    const policyKey = session.requireString("policy-key");
    return await session.exclusive(async () => {
      const edit = await readDraftForEdit(session);
      const policy = requirePolicy(edit.draft, policyKey, LIST_HINT);
      edit.draft.policies.splice(edit.draft.policies.indexOf(policy), 1);
      await saveDraft(session, edit);
      const rules = Array.isArray(policy.rules) ? policy.rules.length : 0;
      const discovered = isTarget(policy.discoveredTarget) ? policy.discoveredTarget : null;
      const defaults = policy.defaults ?? null;
      out.result(
        {
          draftPath: edit.file,
          policyKey,
          ruleCount: rules,
          defaultsEffect: defaults?.effect ?? null,
          discoveredTarget: discovered,
          policyCount: edit.draft.policies.length,
          warnings: out.warnings,
        },
        () => {
          out.info(
            `removed policy ${policyKey} (${plural(rules, "rule")}, default ${
              defaults === null ? "(none)" : describeEffect(defaults.effect, defaults)
            }) from ${edit.file}`,
          );
          if (discovered !== null) {
            out.info(
              `  analyze found ${
                describeTarget(discovered)
              } in the code: 'policy analyze --check' reports it missing until a policy names it`,
            );
          }
        },
      );
      return 0;
    });
  },
);
