/**
 * `policy policies remove`: removes one policy from the draft.
 *
 * @module
 */
import type { PolicyDefault, Target } from "../../../engine/types.ts";
import { type DraftDocument, isTarget } from "../../../authoring/draft.ts";
import type { CommandSpec } from "../../kit/command_spec.ts";
import { LIST_HINT, requirePolicy } from "../../kit/draft.ts";
import { describeEffect, describeTarget, plural } from "../../kit/describe.ts";
import type { Output } from "../../kit/output.ts";
import { defineDraftEdit, type EditPlan } from "./_draft_edit.ts";

/** What `policies remove` did. */
export type RemovePolicyPlan =
  & EditPlan<{
    policyKey: string;
    ruleCount: number;
    defaultsEffect: string | null;
    discoveredTarget: Target | null;
    policyCount: number;
  }>
  & { defaults: PolicyDefault | null };

/** The declaration of `policies remove`. */
export const REMOVE_POLICY_SPEC: CommandSpec = {
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
};

/**
 * Removes policy `policyKey` from `draft`.
 *
 * @throws {CliError} `POLICY_NOT_FOUND`.
 */
export function planRemovePolicy(draft: DraftDocument, policyKey: string): RemovePolicyPlan {
  const policy = requirePolicy(draft, policyKey, LIST_HINT);
  draft.policies.splice(draft.policies.indexOf(policy), 1);
  const defaults = policy.defaults ?? null;
  return {
    document: {
      policyKey,
      ruleCount: Array.isArray(policy.rules) ? policy.rules.length : 0,
      defaultsEffect: defaults?.effect ?? null,
      discoveredTarget: isTarget(policy.discoveredTarget) ? policy.discoveredTarget : null,
      policyCount: draft.policies.length,
    },
    changed: true,
    defaults,
  };
}

function render(out: Output, { document: d, defaults }: RemovePolicyPlan, file: string): void {
  out.info(
    `removed policy ${d.policyKey} (${plural(d.ruleCount, "rule")}, default ${
      defaults === null ? "(none)" : describeEffect(defaults.effect, defaults)
    }) from ${file}`,
  );
  if (d.discoveredTarget !== null) {
    out.info(
      `  analyze found ${
        describeTarget(d.discoveredTarget)
      } in the code: 'policy analyze --check' reports it missing until a policy names it`,
    );
  }
}

/** Removes a policy from the draft. */
export const runRemovePolicy = defineDraftEdit(REMOVE_POLICY_SPEC, {
  parameters: (session) => session.requireString("policy-key"),
  plan: (draft, policyKey, _inputs: undefined) => planRemovePolicy(draft, policyKey),
  render,
});
